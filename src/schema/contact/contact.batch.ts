// Contacts in batches (POST /v1/contacts/batch, batchContacts): upserts by email or external_id,
// each operation through the same writes as the single-record mutations, so it records the same events.
import { definitionsLoader } from '../custom-field/custom-field.loader.ts';
import { activeUsersLoader } from '../user/active-users.loader.ts';
import { batchMutation } from '../batch/batch.type.ts';
import type { BatchResource } from '../batch/batch.run.ts';
import { emailTaken } from './contact.write.ts';
import { planContacts } from './contact.batch-plan.ts';
import { createContact, deleteContact, updateContact } from './contact.write.ts';
import {
  contactCreateInput,
  contactUpdateInput,
  type ContactCreateInput,
  type ContactUpdateInput,
} from './contact.inputs.ts';
import { UPSERT_KEYS } from '../../records/upsert-keys.ts';

const FIND_BY: Record<string, 'id' | 'email' | 'externalId'> = { id: 'id', email: 'email', external_id: 'externalId' };

export const contactBatch: BatchResource<ContactCreateInput, ContactUpdateInput> = {
  noun: 'contact',
  createInput: contactCreateInput,
  updateInput: contactUpdateInput,
  uniqueKeys: ['email', 'external_id'],
  async prepare(ctx, data) {
    await definitionsLoader(ctx).load(ctx.caller.accountId);
    const users = data.flatMap((d) => (typeof d.assigned_to === 'string' ? [d.assigned_to] : []));
    await activeUsersLoader(ctx).loadMany([...new Set(users)]);
  },
  async find(tx, ctx, key, value) {
    const field = FIND_BY[key];
    const found = await tx.contact.findFirst({
      where: { workspaceId: ctx.caller.workspaceId, [field]: key === 'email' ? value.toLowerCase() : value },
      select: { id: true },
    });
    return found?.id ?? null;
  },
  create: (tx, ctx, input) => createContact(tx, ctx, input),
  update: (tx, ctx, id, input) => updateContact(tx, ctx, id, input),
  remove: (tx, ctx, id) => deleteContact(tx, ctx, id),
  // Checked before each write (409 with existing_id); a concurrent writer's row is still a conflict.
  refusals: { uniqueViolation: emailTaken },
  plan: planContacts,
};

export const contactBatchInput = batchMutation(
  'batchContacts',
  'contacts',
  { typeName: 'Contact', plural: 'contacts', data: contactUpdateInput, upsertKeys: UPSERT_KEYS.contacts },
  contactBatch,
);
