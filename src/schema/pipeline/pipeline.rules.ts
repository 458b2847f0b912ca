// What may happen to pipelines and stages. Pure: the mutations load the counts, call these,
// then write.
import { AppError, validationError } from '../../errors.ts';

/**
 * The stage ids in their new order after `id` is put at `position` (1-based). An id not in
 * the list yet is inserted there. Positions are the list indexes + 1, so gaps never survive.
 */
export function reorder(ids: readonly string[], id: string, position: number): string[] {
  const rest = ids.filter((x) => x !== id);
  if (!Number.isInteger(position) || position < 1 || position > rest.length + 1) {
    throw validationError({ position: [`must be from 1 to ${rest.length + 1}`] });
  }
  return [...rest.slice(0, position - 1), id, ...rest.slice(position - 1)];
}

/** A pipeline that holds deals keeps them; the last pipeline of a workspace stays. */
export function assertPipelineDeletable(p: { dealCount: number; pipelineCount: number }): void {
  if (p.dealCount > 0) {
    throw new AppError('conflict', 'The pipeline still holds deals; move or delete them first');
  }
  if (p.pipelineCount <= 1) {
    throw new AppError('conflict', 'The only pipeline of a workspace cannot be deleted');
  }
}

/** A stage that holds deals keeps them; a pipeline keeps at least one stage so deals can enter it. */
export function assertStageDeletable(s: { dealCount: number; stageCount: number }): void {
  if (s.dealCount > 0) {
    throw new AppError('conflict', 'The stage still holds deals; move them to another stage first');
  }
  if (s.stageCount <= 1) {
    throw new AppError('conflict', 'A pipeline needs at least one stage');
  }
}

/** There is always exactly one default pipeline: it changes by making another one the default. */
export function assertDefaultKept(isDefault: boolean, requested: boolean | undefined): void {
  if (isDefault && requested === false) {
    throw new AppError(
      'unprocessable_entity',
      'A workspace needs a default pipeline: make another pipeline the default instead',
      {
        is_default: ['cannot be unset on the default pipeline'],
      },
    );
  }
}

export function assertStageRoom(stageCount: number, max: number): void {
  if (stageCount >= max) throw new AppError('unprocessable_entity', `A pipeline has at most ${max} stages`);
}

/** The stages of a new workspace's pipeline, and of a pipeline created without stages. */
export const DEFAULT_STAGES = [
  { name: 'Lead', probability: 10 },
  { name: 'Qualified', probability: 25 },
  { name: 'Proposal', probability: 50 },
  { name: 'Negotiation', probability: 75 },
  { name: 'Closed', probability: 100 },
];
