// The GraphQL side of batches: one answer type for every resource, and the mutation each resource
// declares with its own input type (`batchContacts(input: ContactBatchInput!)`).
import { assertAllowed, type Resource } from '../../auth/scopes.ts';
import { builder } from '../builder.ts';
import { BatchOperationKind } from '../common/enums.ts';
import { ErrorInfoType } from '../common/error-info.type.ts';
import { parseInput } from '../common/validation.ts';
import { zodInput } from '../common/zod-input.ts';
import { BATCH_MAX, batchEnvelope, batchInput, type BatchShape } from './batch.inputs.ts';
import { runBatch, type BatchAnswer, type BatchResource, type BatchResult } from './batch.run.ts';

const BatchOperationResult = builder.objectRef<BatchResult>('BatchOperationResult').implement({
  description: 'What one operation of a batch did, or why it did not.',
  fields: (t) => ({
    index: t.exposeInt('index', { description: 'Its position in the request, from 0' }),
    op: t.expose('op', { type: BatchOperationKind, nullable: true, description: 'Null when none was given' }),
    status: t.exposeInt('status', {
      description:
        'The HTTP status the operation alone would have had: 201 created, 200 updated or deleted, ' +
        '4xx with error; 424 when an atomic batch was rolled back because of another operation',
    }),
    id: t.exposeID('id', {
      nullable: true,
      description: "The record's id; null when the operation failed, or when a dry run's create would make it",
    }),
    error: t.field({
      type: ErrorInfoType,
      nullable: true,
      description:
        "Why the operation failed, as an error envelope's error (for a conflict, details.existing_id); " +
        'null when it succeeded',
      resolve: (r) => r.error,
    }),
  }),
});

export const BatchResultType = builder.objectRef<BatchAnswer>('BatchResult').implement({
  description: 'The answer to a batch: one result per operation, in request order.',
  fields: (t) => ({
    results: t.field({ type: [BatchOperationResult], resolve: (a) => a.results }),
    applied: t.exposeInt('applied', { description: 'Operations applied (0 in a dry run)' }),
    created: t.exposeInt('created', { description: 'Records created by the applied operations' }),
    failed: t.exposeInt('failed', { description: 'Operations that failed or, in an atomic batch, were rolled back' }),
    dry_run: t.exposeBoolean('dry_run', { description: 'Nothing was written' }),
  }),
});

/** The batch mutation of a resource, named `batch<Plural>`. */
export function batchMutation<C, U>(
  field: string,
  permission: Resource,
  shape: BatchShape,
  resource: BatchResource<C, U>,
): ReturnType<typeof batchInput> {
  const schema = batchInput(shape);
  const Input = zodInput(
    `${shape.typeName}BatchInput`,
    schema,
    `Up to ${BATCH_MAX} operations on ${shape.plural}, applied in order; each answered on its own.`,
  );
  builder.mutationField(field, (t) =>
    t.field({
      type: BatchResultType,
      description:
        `Creates, updates, upserts and deletes up to ${BATCH_MAX} ${shape.plural} in one request, in order. ` +
        'Each operation succeeds or fails alone unless atomic is set; dry_run writes nothing.',
      args: { input: t.arg({ type: Input, required: true }) },
      resolve: (_root, args, ctx) => {
        assertAllowed(ctx.caller, permission, 'write');
        return runBatch(ctx, resource, parseInput(batchEnvelope, args.input));
      },
    }),
  );
  return schema;
}
