import { assertAllowed } from '../../auth/scopes.ts';
import { transaction } from '../../db/transaction.ts';
import { builder } from '../builder.ts';
import { DeleteResult } from '../common/page.ts';
import { EXPECTED_VERSION_HELP } from '../common/versions.ts';
import { parseInput } from '../common/validation.ts';
import { zodInput } from '../common/zod-input.ts';
import { companyCreateInput, companyMergeInput, companyUpdateInput } from './company.inputs.ts';
import { CompanyType } from './company.type.ts';
import { companyRefusals, createCompany, deleteCompany, mergeCompanies, updateCompany } from './company.write.ts';

const CompanyCreateInput = zodInput(
  'CompanyCreateInput',
  companyCreateInput,
  'A new company: name is required; domain and external_id must be unique in the workspace.',
);
const CompanyUpdateInput = zodInput(
  'CompanyUpdateInput',
  companyUpdateInput,
  'Fields to change; those left out keep their values, null clears a nullable one.',
);
const CompanyMergeInput = zodInput(
  'CompanyMergeInput',
  companyMergeInput,
  'Two companies of the workspace to merge, and whose values win (default prefer_primary).',
);

builder.mutationFields((t) => ({
  createCompany: t.field({
    type: CompanyType,
    description: 'Creates a company (name required).',
    args: { input: t.arg({ type: CompanyCreateInput, required: true }) },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'companies', 'write');
      const input = parseInput(companyCreateInput, args.input);
      return transaction(ctx.prisma, (tx) => createCompany(tx, ctx, input), companyRefusals(ctx, input));
    },
  }),
  updateCompany: t.field({
    type: CompanyType,
    description: "Partial update: only the fields given change. A new name becomes the linked contacts' company text.",
    args: {
      id: t.arg.id({ required: true }),
      input: t.arg({ type: CompanyUpdateInput, required: true }),
      expected_version: t.arg.int({ description: EXPECTED_VERSION_HELP }),
    },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'companies', 'write');
      const input = parseInput(companyUpdateInput, args.input);
      return transaction(
        ctx.prisma,
        (tx) => updateCompany(tx, ctx, String(args.id), input, args.expected_version),
        companyRefusals(ctx, input),
      );
    },
  }),
  deleteCompany: t.field({
    type: DeleteResult,
    description: 'Deletes a company; its contacts and deals stay, unlinked. Irreversible.',
    args: { id: t.arg.id({ required: true }), expected_version: t.arg.int({ description: EXPECTED_VERSION_HELP }) },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'companies', 'write');
      return transaction(
        ctx.prisma,
        (tx) => deleteCompany(tx, ctx, String(args.id), args.expected_version),
        companyRefusals(ctx, {}),
      );
    },
  }),
  mergeCompanies: t.field({
    type: CompanyType,
    description:
      'Merges the secondary company into the primary: its contacts and deals move to the primary, ' +
      'tags and custom fields are unioned, then the secondary is deleted.',
    args: {
      input: t.arg({ type: CompanyMergeInput, required: true }),
      expected_version: t.arg.int({ description: `The primary company's version. ${EXPECTED_VERSION_HELP}` }),
    },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'companies', 'write');
      const input = parseInput(companyMergeInput, args.input);
      return transaction(
        ctx.prisma,
        (tx) => mergeCompanies(tx, ctx, input, args.expected_version),
        companyRefusals(ctx, {}),
      );
    },
  }),
}));
