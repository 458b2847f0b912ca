// The body of `POST /v1/<resource>/batch` and of the GraphQL batch mutations: up to 1,000
// operations applied in order, each answered on its own. `data` is typed as the resource's update
// input (every field optional); each operation's data is then checked against what its kind needs
// (a create's required fields), so one bad operation fails alone.
import { z } from 'zod';
import { inputNamed } from '../common/graphql-names.ts';

export const BATCH_MAX = 1000;
export const BATCH_OPS = ['create', 'update', 'upsert', 'delete'] as const;
export type BatchOp = (typeof BATCH_OPS)[number];

export interface BatchShape {
  /** GraphQL name stem: Contact → ContactBatchInput. */
  typeName: string;
  /** Plural, for descriptions. */
  plural: string;
  /** The resource's update input: the fields an operation's data may hold. */
  data: z.ZodObject;
  /** The keys an upsert may match on. */
  upsertKeys: readonly [string, ...string[]];
}

export function batchInput(shape: BatchShape) {
  // A copy of the update input (meta makes a new schema): named for batches, the original keeps its name.
  const data = inputNamed(
    shape.data.meta({}),
    `${shape.typeName}BatchData`,
    `The fields of a ${shape.typeName.toLowerCase()} an operation writes: for create and for an upsert that ` +
      "creates, those a create requires; for update, those to change (left out: unchanged); the upsert's key " +
      'field must be given.',
  );
  const operation = inputNamed(
    z.object({
      // Required, checked per operation: an operation the REST layer finds unfit for this type travels
      // as an empty one and is answered at its index with what was wrong with it.
      op: z.enum(BATCH_OPS).optional().meta({ description: 'Required: what the operation does' }),
      id: z.string().min(1).max(255).optional().meta({ description: 'The record to update or delete' }),
      upsert_by: z
        .enum(shape.upsertKeys)
        .optional()
        .meta({ description: `For upsert: the field of data that finds the record (${shape.upsertKeys.join(', ')})` }),
      data: data.optional(),
    }),
    `${shape.typeName}BatchOperation`,
    `One operation of a batch of ${shape.plural}: create, update (by id), upsert (by upsert_by) or delete (by id).`,
  );
  return batchOf(operation);
}

function batchOf<O extends z.ZodType>(operation: O) {
  return z.object({
    operations: z
      .array(operation)
      .min(1, 'must hold at least one operation')
      .max(BATCH_MAX, `at most ${BATCH_MAX} operations per request`),
    dry_run: z
      .boolean()
      .default(false)
      .meta({ description: 'Check every operation and answer what it would do, writing nothing' }),
    atomic: z
      .boolean()
      .default(false)
      .meta({ description: 'Apply every operation or none: one failure leaves everything as it was' }),
  });
}

/**
 * The batch as the resolver reads it: each operation's data is checked once, by the operation
 * (against a create's or an update's rules), so here it is only an object.
 */
export const batchEnvelope = batchOf(
  z.object({
    op: z.enum(BATCH_OPS).optional(),
    id: z.string().min(1).max(255).optional(),
    upsert_by: z.string().optional(),
    data: z.record(z.string(), z.unknown()).optional(),
  }),
);

export type BatchInput = z.output<typeof batchEnvelope>;
export type BatchOperation = BatchInput['operations'][number];
