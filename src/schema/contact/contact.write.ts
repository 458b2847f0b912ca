// The writes shared by the contact mutations: each runs inside the caller's transaction
// and records its events there.
import { Prisma, type Contact } from '../../db/generated/client/client.ts';
import { AppError, validationError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { insertEventSql, recordEvent } from '../../events/outbox.ts';
import {
  contactCreated,
  contactStatusChanged,
  contactTagAdded,
  contactTagRemoved,
  contactUpdated,
} from '../../events/catalogue/contact.events.ts';
import { actorOf, type Context } from '../context.ts';
import { assertActiveUser } from '../user/user.rules.ts';
import type { ContactCreateInput, ContactUpdateInput } from './contact.inputs.ts';
import { customFieldsFor } from '../custom-field/custom-field.values.ts';
import { tagChanges } from './merge.rules.ts';

type Tx = Prisma.TransactionClient;

export const emailTaken = () =>
  new AppError('conflict', 'A contact with this email already exists in the workspace', {
    email: ['is already taken'],
  });

/**
 * Creates a contact and its contact.created event in one SQL statement: atomic without a
 * transaction and one round trip, which is most of what a create costs. The row is built here,
 * defaults and timestamps included, so the event and the answer carry exactly what is stored.
 */
export async function createContact(
  db: Pick<Tx, '$executeRaw'>,
  ctx: Context,
  input: ContactCreateInput,
): Promise<Contact> {
  // Outside a transaction: the request's loaders answer, so a bulk create reads the definitions
  // once and each user its rows name once.
  await assertActiveUser(null, ctx, input.assigned_to, 'assigned_to');
  const customFields = await customFieldsFor(null, ctx, input.custom_fields);
  const now = new Date();
  const c: Contact = {
    id: newId('con'),
    workspaceId: ctx.caller.workspaceId,
    firstName: input.first_name,
    lastName: input.last_name ?? null,
    email: input.email,
    phone: input.phone ?? null,
    company: input.company ?? null,
    jobTitle: input.job_title ?? null,
    status: input.status ?? 'lead',
    source: input.source ?? 'api',
    tags: input.tags ?? [],
    assignedToId: input.assigned_to ?? null,
    engagementScore: 0,
    customFields: customFields as Prisma.JsonObject,
    address: input.address ?? null,
    companyId: null,
    externalId: null,
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
  const contactRow = Prisma.sql`contact AS (
      INSERT INTO contacts (id, workspace_id, first_name, last_name, email, phone, company, job_title, status, source,
        tags, assigned_to, engagement_score, custom_fields, address, created_at, updated_at)
      VALUES (${c.id}, ${c.workspaceId}, ${c.firstName}, ${c.lastName}, ${c.email}, ${c.phone}, ${c.company},
        ${c.jobTitle}, ${c.status}, ${c.source}, ${c.tags}::text[], ${c.assignedToId}, ${c.engagementScore},
        ${JSON.stringify(c.customFields)}::jsonb, ${c.address === null ? null : JSON.stringify(c.address)}::jsonb,
        ${now}, ${now}))`;
  // A data-modifying WITH runs exactly once whether or not the outer statement reads it.
  const event = insertEventSql(
    { ...contactCreated.build(c), workspaceId: c.workspaceId, contactId: c.id, actor: actorOf(ctx) },
    contactRow,
  );
  await db.$executeRaw(event.sql);
  return c;
}

const FIELD_MAP = {
  first_name: 'firstName',
  last_name: 'lastName',
  email: 'email',
  phone: 'phone',
  company: 'company',
  job_title: 'jobTitle',
  status: 'status',
  source: 'source',
  tags: 'tags',
  assigned_to: 'assignedToId',
  address: 'address',
} as const;

export async function updateContact(tx: Tx, ctx: Context, id: string, input: ContactUpdateInput) {
  const before = await tx.contact.findFirst({ where: { id, workspaceId: ctx.caller.workspaceId } });
  if (!before) throw new AppError('not_found', 'Contact not found');
  if (input.first_name === null || input.email === null)
    throw validationError({ [input.first_name === null ? 'first_name' : 'email']: ['cannot be null'] });
  await assertActiveUser(tx, ctx, input.assigned_to, 'assigned_to');
  const data: Record<string, unknown> = {};
  for (const [api, field] of Object.entries(FIELD_MAP)) {
    const value = input[api as keyof typeof FIELD_MAP];
    if (value !== undefined) data[field] = value;
  }
  // A JSON column is cleared with DbNull; a plain null would mean the JSON value null.
  if (input.address === null) data.address = Prisma.DbNull;
  const customFields = await customFieldsFor(
    tx,
    ctx,
    input.custom_fields,
    before.customFields as Record<string, unknown>,
  );
  if (input.custom_fields) data.customFields = customFields;
  const after = await tx.contact.update({ where: { id }, data: data as Prisma.ContactUpdateInput });

  const changed: (keyof typeof FIELD_MAP | 'custom_fields')[] = Object.entries(FIELD_MAP)
    .filter(
      ([api, field]) =>
        input[api as keyof typeof FIELD_MAP] !== undefined &&
        JSON.stringify(before[field]) !== JSON.stringify(after[field]),
    )
    .map(([api]) => api as keyof typeof FIELD_MAP);
  if (input.custom_fields && JSON.stringify(before.customFields) !== JSON.stringify(after.customFields))
    changed.push('custom_fields');
  if (changed.length === 0) return after;

  const base = { workspaceId: after.workspaceId, contactId: id, actor: actorOf(ctx) };
  await recordEvent(tx, { ...base, ...contactUpdated.build({ contact: after, before, changes: changed }) });
  if (before.status !== after.status)
    await recordEvent(tx, {
      ...base,
      ...contactStatusChanged.build({ contact: after, previousStatus: before.status }),
    });
  const tags = tagChanges(before.tags, after.tags);
  if (tags.added.length)
    await recordEvent(tx, { ...base, ...contactTagAdded.build({ contact: after, tags: tags.added }) });
  if (tags.removed.length)
    await recordEvent(tx, { ...base, ...contactTagRemoved.build({ contact: after, tags: tags.removed }) });
  return after;
}
