// Helpers shared by the pipeline and stage mutations; each runs inside the caller's transaction.
import type { Pipeline, Prisma, Stage } from '../../db/generated/client/client.ts';
import { auditOf } from '../common/audited.ts';
import type { Refusals } from '../../db/transaction.ts';
import { AppError } from '../../errors.ts';
import type { Context } from '../context.ts';
import { findPipeline } from './pipeline.queries.ts';

type Tx = Prisma.TransactionClient;

/**
 * What the database's refusals mean in a pipeline or stage transaction: a deal written
 * concurrently into a pipeline or stage being deleted makes the database refuse the delete,
 * the same conflict the checks report.
 */
export const PIPELINE_REFUSALS: Refusals = {
  foreignKeyViolation: () => new AppError('conflict', 'The pipeline or stage holds deals; move or delete them first'),
};

/**
 * Loads the pipeline (404 when not the caller's) and locks it, so concurrent stage changes
 * of one pipeline renumber positions one after the other.
 */
export async function lockPipeline(tx: Tx, ctx: Context, id: string) {
  const pipeline = await findPipeline(tx, ctx, id);
  await tx.$queryRaw`SELECT id FROM pipelines WHERE id = ${pipeline.id} FOR UPDATE`;
  return pipeline;
}

export function stagesInOrder(tx: Tx, pipelineId: string) {
  return tx.stage.findMany({ where: { pipelineId }, orderBy: [{ position: 'asc' }, { id: 'asc' }] });
}

/**
 * Gives each of `stages` its place in `order` (positions 1..n), writing only those that
 * moved. An id in `order` that is not in `stages` (a stage being created) is left to the
 * caller.
 */
export async function renumber(tx: Tx, stages: { id: string; position: number }[], order: string[]): Promise<void> {
  const current = new Map(stages.map((s) => [s.id, s.position]));
  for (const [i, id] of order.entries()) {
    const position = current.get(id);
    if (position !== undefined && position !== i + 1)
      await tx.stage.update({ where: { id }, data: { position: i + 1 } });
  }
}

/** Called before another pipeline becomes the default: a workspace has exactly one. */
export async function clearDefault(tx: Tx, workspaceId: string): Promise<void> {
  await tx.pipeline.updateMany({ where: { workspaceId, isDefault: true }, data: { isDefault: false } });
}

const pipelineFields = (p: Pipeline) => ({ name: p.name, is_default: p.isDefault });
const stageFields = (s: Stage) => ({
  name: s.name,
  probability: s.probability,
  position: s.position,
  pipeline_id: s.pipelineId,
});

/** The audit entry of a pipeline's write (pipelines record no events). */
export const auditPipeline = auditOf<Pipeline>('pipeline', pipelineFields);

/** The audit entry of a stage's write; renumbering the others is part of it, not entries of their own. */
export const auditStage = auditOf<Stage>('stage', stageFields);
