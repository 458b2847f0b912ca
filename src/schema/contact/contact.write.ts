// The writes shared by the contact mutations: each runs inside the caller's transaction
// and records its events there.
import { Prisma, type Contact } from '../../db/generated/client/client.ts';
import { AppError, validationError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { insertEventSql, recordEvent, type NewEvent } from '../../events/outbox.ts';
import {
  contactCreated,
  contactDeleted,
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
import { companyOfEmail, linkedCompany } from '../company/company.references.ts';
import type { Refusals } from '../../db/transaction.ts';
import { externalIdTaken, onExternalId } from '../common/external-id.ts';
import { assertVersion } from '../common/versions.ts';

type Tx = Prisma.TransactionClient;

export const emailTaken = () =>
  new AppError('conflict', 'A contact with this email already exists in the workspace', {
    email: ['is already taken'],
  });

/**
 * What a unique violation of a contact write means: its email or its external_id is another
 * contact's. Looks the holder of the external_id up, so it runs after the write's transaction.
 */
export function contactRefusals(ctx: Context, externalId: string | null | undefined): Refusals {
  return {
    uniqueViolation: (columns) =>
      onExternalId(columns) && externalId
        ? externalIdTaken('contact', () =>
            ctx.prisma.contact.findFirst({
              where: { workspaceId: ctx.caller.workspaceId, externalId },
              select: { id: true },
            }),
          )
        : emailTaken(),
  };
}

/**
 * Creates a contact and its contact.created event in one SQL statement: atomic without a
 * transaction and one round trip, which is most of what a create costs. The row is built here,
 * defaults and timestamps included, so the event and the answer carry exactly what is stored.
 */
export async function createContact(
  db: Pick<Tx, '$executeRaw' | 'company'>,
  ctx: Context,
  input: ContactCreateInput,
): Promise<Contact> {
  // Outside a transaction: the request's loaders answer, so a bulk create reads the definitions
  // once and each user its rows name once.
  await assertActiveUser(null, ctx, input.assigned_to, 'assigned_to');
  const customFields = await customFieldsFor(null, ctx, input.custom_fields);
  // A linked company names the contact's company. Without company_id the workspace may link by the
  // e-mail's domain: read only when its setting says so, so a create stays one statement.
  const linked =
    input.company_id === undefined
      ? await companyOfEmail(db, ctx, input.email)
      : input.company_id === null
        ? null
        : await linkedCompany(db, ctx, input.company_id);
  const c = newContact(ctx, input, customFields, linked);
  const now = c.createdAt;
  const contactRow = Prisma.sql`contact AS (
      INSERT INTO contacts (id, workspace_id, first_name, last_name, email, phone, company, job_title, status, source,
        tags, assigned_to, engagement_score, custom_fields, address, external_id, company_id, created_at, updated_at)
      VALUES (${c.id}, ${c.workspaceId}, ${c.firstName}, ${c.lastName}, ${c.email}, ${c.phone}, ${c.company},
        ${c.jobTitle}, ${c.status}, ${c.source}, ${c.tags}::text[], ${c.assignedToId}, ${c.engagementScore},
        ${JSON.stringify(c.customFields)}::jsonb, ${c.address === null ? null : JSON.stringify(c.address)}::jsonb,
        ${c.externalId}, ${c.companyId}, ${now}, ${now}))`;
  // A data-modifying WITH runs exactly once whether or not the outer statement reads it.
  const event = insertEventSql(
    { ...contactCreated.build(c), workspaceId: c.workspaceId, contactId: c.id, actor: actorOf(ctx) },
    contactRow,
  );
  await db.$executeRaw(event.sql);
  return c;
}

/** The row a create stores: the input with its defaults, timestamps now and version 1. */
export function newContact(
  ctx: Context,
  input: ContactCreateInput,
  customFields: Record<string, unknown>,
  linked: { id: string; name: string } | null,
): Contact {
  const now = new Date();
  return {
    id: newId('con'),
    workspaceId: ctx.caller.workspaceId,
    firstName: input.first_name,
    lastName: input.last_name ?? null,
    email: input.email,
    phone: input.phone ?? null,
    company: linked?.name ?? input.company ?? null,
    jobTitle: input.job_title ?? null,
    status: input.status ?? 'lead',
    source: input.source ?? 'api',
    tags: input.tags ?? [],
    assignedToId: input.assigned_to ?? null,
    engagementScore: 0,
    customFields: customFields as Prisma.JsonObject,
    address: input.address ?? null,
    companyId: linked?.id ?? null,
    externalId: input.external_id ?? null,
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
}

export const FIELD_MAP = {
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
  external_id: 'externalId',
  company_id: 'companyId',
} as const;

export async function updateContact(
  tx: Tx,
  ctx: Context,
  id: string,
  input: ContactUpdateInput,
  expectedVersion?: number | null,
) {
  await assertVersion(tx, 'contacts', id, ctx.caller.workspaceId, expectedVersion);
  const before = await tx.contact.findFirst({ where: { id, workspaceId: ctx.caller.workspaceId } });
  if (!before) throw new AppError('not_found', 'Contact not found');
  if (input.first_name === null || input.email === null)
    throw validationError({ [input.first_name === null ? 'first_name' : 'email']: ['cannot be null'] });
  await assertActiveUser(tx, ctx, input.assigned_to, 'assigned_to');
  const linked = input.company_id ? await linkedCompany(tx, ctx, input.company_id) : null;
  const data: Record<string, unknown> = {};
  for (const [api, field] of Object.entries(FIELD_MAP)) {
    const value = input[api as keyof typeof FIELD_MAP];
    if (value !== undefined) data[field] = value;
  }
  // A linked company's name is the contact's company (docs/decisions.md).
  if (linked) data.company = linked.name;
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

  const changed = contactChanges(before, after, input, linked !== null);
  if (changed.length === 0) return after;
  for (const event of contactUpdateEvents(ctx, before, after, changed)) await recordEvent(tx, event);
  return after;
}

type ContactField = keyof typeof FIELD_MAP | 'custom_fields';

/** The fields an update changed: given in the input and different after it (a link renames `company`). */
export function contactChanges(before: Contact, after: Contact, input: ContactUpdateInput, linked: boolean) {
  const changed: ContactField[] = Object.entries(FIELD_MAP)
    .filter(
      ([api, field]) =>
        input[api as keyof typeof FIELD_MAP] !== undefined &&
        JSON.stringify(before[field]) !== JSON.stringify(after[field]),
    )
    .map(([api]) => api as keyof typeof FIELD_MAP);
  if (input.custom_fields && JSON.stringify(before.customFields) !== JSON.stringify(after.customFields))
    changed.push('custom_fields');
  if (linked && before.company !== after.company && !changed.includes('company')) changed.push('company');
  return changed;
}

/** The events of an update that changed `changed`: contact.updated, and status and tag events where they moved. */
export function contactUpdateEvents(
  ctx: Context,
  before: Contact,
  after: Contact,
  changed: ContactField[],
): NewEvent[] {
  const base = { workspaceId: after.workspaceId, contactId: after.id, actor: actorOf(ctx) };
  const events: NewEvent[] = [{ ...base, ...contactUpdated.build({ contact: after, before, changes: changed }) }];
  if (before.status !== after.status)
    events.push({ ...base, ...contactStatusChanged.build({ contact: after, previousStatus: before.status }) });
  const tags = tagChanges(before.tags, after.tags);
  if (tags.added.length) events.push({ ...base, ...contactTagAdded.build({ contact: after, tags: tags.added }) });
  if (tags.removed.length) events.push({ ...base, ...contactTagRemoved.build({ contact: after, tags: tags.removed }) });
  return events;
}

/** Deletes a contact (its notes and deal associations go with it) and records contact.deleted. */
export async function deleteContact(tx: Tx, ctx: Context, id: string): Promise<void> {
  const contact = await tx.contact.findFirst({ where: { id, workspaceId: ctx.caller.workspaceId } });
  if (!contact) throw new AppError('not_found', 'Contact not found');
  await tx.contact.delete({ where: { id } });
  await recordEvent(tx, {
    ...contactDeleted.build(contact),
    workspaceId: contact.workspaceId,
    contactId: id,
    actor: actorOf(ctx),
  });
}
