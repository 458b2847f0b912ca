// Companies in batches (POST /v1/companies/batch, batchCompanies): upserts by domain or external_id,
// each operation through the single-record writes, so it records the same events.
import { AppError } from '../../errors.ts';
import { batchMutation } from '../batch/batch.type.ts';
import type { BatchResource } from '../batch/batch.run.ts';
import { definitionsLoader } from '../custom-field/custom-field.loader.ts';
import {
  companyCreateInput,
  companyUpdateInput,
  normaliseDomain,
  type CompanyCreateInput,
  type CompanyUpdateInput,
} from './company.inputs.ts';
import { createCompany, deleteCompany, updateCompany } from './company.write.ts';
import { UPSERT_KEYS } from '../../records/upsert-keys.ts';

const FIND_BY: Record<string, 'id' | 'domain' | 'externalId'> = {
  id: 'id',
  domain: 'domain',
  external_id: 'externalId',
};

export const companyBatch: BatchResource<CompanyCreateInput, CompanyUpdateInput> = {
  noun: 'company',
  createInput: companyCreateInput,
  updateInput: companyUpdateInput,
  uniqueKeys: ['domain', 'external_id'],
  prepare: async (ctx) => {
    await definitionsLoader(ctx).load(ctx.caller.accountId);
  },
  async find(tx, ctx, key, value) {
    const found = await tx.company.findFirst({
      where: { workspaceId: ctx.caller.workspaceId, [FIND_BY[key]]: key === 'domain' ? normaliseDomain(value) : value },
      select: { id: true },
    });
    return found?.id ?? null;
  },
  create: (tx, ctx, input) => createCompany(tx, ctx, input),
  update: (tx, ctx, id, input) => updateCompany(tx, ctx, id, input),
  remove: async (tx, ctx, id) => {
    await deleteCompany(tx, ctx, id);
  },
  // Checked before each write (409 with existing_id); a concurrent writer's row is still a conflict.
  refusals: { uniqueViolation: () => new AppError('conflict', 'A company with these values already exists') },
};

export const companyBatchInput = batchMutation(
  'batchCompanies',
  'companies',
  { typeName: 'Company', plural: 'companies', data: companyUpdateInput, upsertKeys: UPSERT_KEYS.companies },
  companyBatch,
);
