// The custom field values a write stores, for contacts and deals alike: the input applied on the
// record's values under the workspace's definitions (shared by its sandbox twin, hence the
// account id). Invalid values are a 400; keys without a definition are dropped with a warning.
import type { Prisma } from '../../db/generated/client/client.ts';
import { validationError } from '../../errors.ts';
import type { Context } from '../context.ts';
import { definitionsLoader } from './custom-field.loader.ts';
import { applyCustomFields, droppedWarning } from './custom-field.rules.ts';

/**
 * The values to store; `existing` unchanged when the input names no custom fields. `tx` is the
 * transaction the write runs in, where the definitions are read; null outside one, where the
 * request's loader answers (a read beside an open transaction would wait for it on PGlite's one
 * connection).
 */
export async function customFieldsFor(
  tx: Pick<Prisma.TransactionClient, 'customFieldDefinition'> | null,
  ctx: Context,
  input: Record<string, unknown> | undefined,
  existing: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  if (!input) return existing;
  const accountId = ctx.caller.accountId;
  const defs = tx
    ? await tx.customFieldDefinition.findMany({ where: { workspaceId: accountId } })
    : await definitionsLoader(ctx).load(accountId);
  const { values, dropped, errors } = applyCustomFields(defs, input, existing);
  if (Object.keys(errors).length) throw validationError(errors);
  if (dropped.length) ctx.warnings.push(droppedWarning(dropped));
  return values;
}
