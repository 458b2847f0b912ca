// The writes behind the company mutations: each runs inside the caller's transaction and records
// its events there.
import { Prisma, type Company } from '../../db/generated/client/client.ts';
import type { Refusals } from '../../db/transaction.ts';
import { AppError, notFound, validationError } from '../../errors.ts';
import { recordEvent } from '../../events/outbox.ts';
import {
  companyCreated,
  companyDeleted,
  companyMerged,
  companyUpdated,
} from '../../events/catalogue/company.events.ts';
import { companyRecord } from '../../records/company.ts';
import { externalIdTaken, onExternalId } from '../common/external-id.ts';
import { assertVersion } from '../common/versions.ts';
import { newId } from '../../ids.ts';
import { actorOf, type Context } from '../context.ts';
import { MAX_TAGS, type MergeStrategy } from '../contact/merge.rules.ts';
import { customFieldsFor } from '../custom-field/custom-field.values.ts';
import { assertActiveUser } from '../user/user.rules.ts';
import type { CompanyCreateInput, CompanyUpdateInput } from './company.inputs.ts';
import { findCompany } from './company.queries.ts';

type Tx = Prisma.TransactionClient;

/**
 * What a unique violation of a company write means: its domain or its external_id is another
 * company's (409, naming that company in `existing_id`). The holder is looked up after the
 * refused write's transaction is over.
 */
export function companyRefusals(
  ctx: Context,
  values: { domain?: string | null; external_id?: string | null },
): Refusals {
  const holder = (where: Prisma.CompanyWhereInput) => () =>
    ctx.prisma.company.findFirst({ where: { workspaceId: ctx.caller.workspaceId, ...where }, select: { id: true } });
  return {
    uniqueViolation: async (columns) => {
      if (onExternalId(columns) && values.external_id)
        return externalIdTaken('company', holder({ externalId: values.external_id }));
      const existing = values.domain ? await holder({ domain: values.domain })() : null;
      return new AppError('conflict', 'A company with this domain already exists in the workspace', {
        domain: ['is already taken'],
        ...(existing ? { existing_id: existing.id } : {}),
      });
    },
    recordNotFound: () => notFound('Company'),
  };
}

const jsonOrNull = (v: unknown) => (v === null || v === undefined ? Prisma.DbNull : (v as Prisma.InputJsonObject));

export async function createCompany(tx: Tx, ctx: Context, input: CompanyCreateInput): Promise<Company> {
  await assertActiveUser(tx, ctx, input.owner_id, 'owner_id');
  const company = await tx.company.create({
    data: {
      id: newId('com'),
      workspaceId: ctx.caller.workspaceId,
      name: input.name,
      domain: input.domain ?? null,
      industry: input.industry ?? null,
      size: input.size ?? null,
      phone: input.phone ?? null,
      address: jsonOrNull(input.address),
      tags: input.tags ?? [],
      ownerId: input.owner_id ?? null,
      customFields: (await customFieldsFor(tx, ctx, input.custom_fields)) as Prisma.InputJsonObject,
      externalId: input.external_id ?? null,
    },
  });
  await recordEvent(tx, { ...companyCreated.build(company), workspaceId: company.workspaceId, actor: actorOf(ctx) });
  return company;
}

const FIELD_MAP = {
  name: 'name',
  domain: 'domain',
  industry: 'industry',
  size: 'size',
  phone: 'phone',
  tags: 'tags',
  owner_id: 'ownerId',
  external_id: 'externalId',
} as const;

// Fields that change with every write and are not reported as changes.
const DERIVED = new Set(['updated_at', 'version']);

type CompanyField = keyof ReturnType<typeof companyRecord>;

function changedFields(before: Company, after: Company): CompanyField[] {
  const was = companyRecord(before);
  const now = companyRecord(after);
  return (Object.keys(now) as CompanyField[]).filter(
    (k) => !DERIVED.has(k) && JSON.stringify(was[k]) !== JSON.stringify(now[k]),
  );
}

/**
 * The linked contacts' `company` text follows the company's name, in one statement however many
 * there are. Their version and updated_at change (a sync polling updated_after sees them); no
 * contact.updated is written per contact: company.updated (or company.merged) tells the change.
 */
async function renameLinkedContacts(tx: Tx, companyId: string, name: string): Promise<number> {
  return tx.$executeRaw`
    UPDATE contacts SET company = ${name}, updated_at = ${new Date()}
    WHERE company_id = ${companyId} AND company IS DISTINCT FROM ${name}`;
}

export async function updateCompany(
  tx: Tx,
  ctx: Context,
  id: string,
  input: CompanyUpdateInput,
  expectedVersion?: number | null,
) {
  await assertVersion(tx, 'companies', id, ctx.caller.workspaceId, expectedVersion);
  const before = await findCompany(tx, ctx, id);
  if (input.name === null) throw validationError({ name: ['cannot be null'] });
  await assertActiveUser(tx, ctx, input.owner_id, 'owner_id');
  const data: Prisma.CompanyUpdateInput = {};
  for (const [api, field] of Object.entries(FIELD_MAP)) {
    const value = input[api as keyof typeof FIELD_MAP];
    if (value !== undefined) (data as Record<string, unknown>)[field] = value;
  }
  if (input.address !== undefined) data.address = jsonOrNull(input.address);
  if (input.custom_fields)
    data.customFields = (await customFieldsFor(
      tx,
      ctx,
      input.custom_fields,
      before.customFields as Record<string, unknown>,
    )) as Prisma.InputJsonObject;
  const after = await tx.company.update({ where: { id: before.id }, data });
  const changes = changedFields(before, after);
  if (changes.length === 0) return after;
  if (before.name !== after.name) await renameLinkedContacts(tx, after.id, after.name);
  await recordEvent(tx, {
    ...companyUpdated.build({ company: after, before, changes }),
    workspaceId: after.workspaceId,
    actor: actorOf(ctx),
  });
  return after;
}

/** Deletes a company; its contacts and deals stay, unlinked (the foreign keys set null). */
export async function deleteCompany(tx: Tx, ctx: Context, id: string, expectedVersion?: number | null) {
  await assertVersion(tx, 'companies', id, ctx.caller.workspaceId, expectedVersion);
  const company = await findCompany(tx, ctx, id);
  await tx.company.delete({ where: { id: company.id } });
  await recordEvent(tx, { ...companyDeleted.build(company), workspaceId: company.workspaceId, actor: actorOf(ctx) });
  return { id: company.id, deleted: true as const };
}

const MERGED_FIELDS = ['name', 'domain', 'industry', 'size', 'phone', 'address', 'ownerId', 'externalId'] as const;

const isBlank = (v: unknown) =>
  v === null || v === undefined || v === '' || (typeof v === 'object' && Object.keys(v as object).length === 0);

/**
 * The preferred company's non-empty fields win and the other fills the blanks; tags and custom
 * fields are unioned (the preferred side wins a key present in both).
 */
export function mergeCompanyFields(primary: Company, secondary: Company, strategy: MergeStrategy) {
  const [win, fill] = strategy === 'prefer_secondary' ? [secondary, primary] : [primary, secondary];
  const tags = [...new Set([...win.tags, ...fill.tags])];
  if (tags.length > MAX_TAGS)
    throw new AppError(
      'unprocessable_entity',
      `The merged company would have ${tags.length} tags and a record has at most ${MAX_TAGS}; remove some first`,
    );
  const fields = Object.fromEntries(MERGED_FIELDS.map((k) => [k, isBlank(win[k]) ? fill[k] : win[k]])) as Pick<
    Company,
    (typeof MERGED_FIELDS)[number]
  >;
  return {
    ...fields,
    tags,
    customFields: {
      ...(fill.customFields as Record<string, unknown>),
      ...(win.customFields as Record<string, unknown>),
    },
  };
}

/**
 * Merges the secondary into the primary: its contacts, deals, notes, activities and tasks move to
 * the primary (contacts take the primary's name as their `company`), then it is deleted and
 * company.merged written.
 * `expectedVersion` is the primary's (the record the merge answers with).
 */
export async function mergeCompanies(
  tx: Tx,
  ctx: Context,
  input: { primary_id: string; secondary_id: string; merge_strategy: MergeStrategy },
  expectedVersion?: number | null,
) {
  if (input.primary_id === input.secondary_id)
    throw new AppError('unprocessable_entity', 'A company cannot be merged with itself', {
      secondary_id: ['must differ from primary_id'],
    });
  const ws = ctx.caller.workspaceId;
  // Both companies are locked before anything moves, in id order, so two merges of the same pair
  // take turns (the second finds its secondary gone: 404) instead of deadlocking. A note, activity
  // or task being written on the secondary (each takes a key-share lock on it) commits first and
  // is moved with the rest; one that comes later waits and then finds it gone, instead of landing
  // after the move and being deleted with it (notes) or losing its company (activities, tasks).
  await tx.$queryRaw`SELECT id FROM companies
    WHERE id IN (${input.primary_id}, ${input.secondary_id}) AND workspace_id = ${ws} ORDER BY id FOR UPDATE`;
  await assertVersion(tx, 'companies', input.primary_id, ws, expectedVersion);
  const [primary, secondary] = await Promise.all([
    tx.company.findUnique({ where: { id: input.primary_id, workspaceId: ws } }),
    tx.company.findUnique({ where: { id: input.secondary_id, workspaceId: ws } }),
  ]);
  if (!primary || !secondary) throw notFound('Company');
  const merged = mergeCompanyFields(primary, secondary, input.merge_strategy);
  const now = new Date();
  // Moved contacts take the surviving name in the same write, so each is raised one version (the
  // rename below then touches only the primary's own contacts, and only when the name changes).
  const movedContacts = await tx.contact.updateMany({
    where: { companyId: secondary.id },
    data: { companyId: primary.id, company: merged.name, updatedAt: now },
  });
  const movedDeals = await tx.deal.updateMany({
    where: { companyId: secondary.id },
    data: { companyId: primary.id, updatedAt: now },
  });
  // Its notes would go with it (they cascade) and its activities and tasks lose their company.
  await tx.note.updateMany({ where: { companyId: secondary.id }, data: { companyId: primary.id } });
  await tx.activity.updateMany({ where: { companyId: secondary.id }, data: { companyId: primary.id } });
  await tx.task.updateMany({
    where: { workspaceId: ws, relatedToType: 'company', relatedToId: secondary.id },
    data: { relatedToId: primary.id },
  });
  // The secondary goes first: its domain and external_id may move to the primary.
  await tx.company.delete({ where: { id: secondary.id } });
  const { address, customFields, ...rest } = merged;
  const result = await tx.company.update({
    where: { id: primary.id },
    data: { ...rest, address: jsonOrNull(address), customFields: customFields as Prisma.InputJsonObject },
  });
  await renameLinkedContacts(tx, result.id, result.name);
  await recordEvent(tx, {
    ...companyMerged.build({
      company: result,
      merged: secondary,
      strategy: input.merge_strategy,
      movedContacts: movedContacts.count,
      movedDeals: movedDeals.count,
    }),
    workspaceId: ws,
    actor: actorOf(ctx),
  });
  return result;
}
