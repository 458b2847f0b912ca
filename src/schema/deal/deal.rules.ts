// Deal business rules. Pure: resolvers load what they need, call these, then write.
import { AppError } from '../../errors.ts';
import type { DealStatus } from './deal.inputs.ts';

export interface StatusFields {
  status: string;
  wonReason: string | null;
  lostReason: string | null;
  competitor: string | null;
  closedAt: Date | null;
}

export interface StatusInput {
  status?: DealStatus;
  won_reason?: string | null;
  lost_reason?: string | null;
  competitor?: string | null;
}

export type StatusTransition = 'won' | 'lost' | 'reopened' | null;

const unprocessable = (message: string, field: string, problem: string) =>
  new AppError('unprocessable_entity', message, { [field]: [problem] });

/**
 * The status fields after an update, and which transition it made.
 * open → won | lost closes the deal; won | lost → open reopens it and clears reasons and
 * competitor; won ↔ lost directly is refused (reopen first). A reason may only be set on a
 * deal that ends up in the status it explains.
 */
export function applyStatus(
  current: StatusFields,
  input: StatusInput,
  now: Date,
): { fields: StatusFields; transition: StatusTransition } {
  const from = current.status;
  const to = input.status ?? from;
  if (from !== to && from !== 'open' && to !== 'open') {
    throw unprocessable(
      `A ${from} deal cannot become ${to} directly; reopen it first (status open)`,
      'status',
      `cannot change from ${from} to ${to}`,
    );
  }
  if (input.won_reason && to !== 'won')
    throw unprocessable('won_reason applies only to won deals', 'won_reason', 'the deal is not won');
  if (input.lost_reason && to !== 'lost')
    throw unprocessable('lost_reason applies only to lost deals', 'lost_reason', 'the deal is not lost');
  if (input.competitor && to !== 'lost')
    throw unprocessable('competitor applies only to lost deals', 'competitor', 'the deal is not lost');

  if (to === 'open') {
    const fields = { status: 'open', wonReason: null, lostReason: null, competitor: null, closedAt: null };
    return { fields, transition: from === 'open' ? null : 'reopened' };
  }
  const changing = from !== to;
  const keep = <T>(given: T | undefined, existing: T | null): T | null =>
    given !== undefined ? given : changing ? null : existing;
  const fields = {
    status: to,
    wonReason: to === 'won' ? keep(input.won_reason, current.wonReason) : null,
    lostReason: to === 'lost' ? keep(input.lost_reason, current.lostReason) : null,
    competitor: to === 'lost' ? keep(input.competitor, current.competitor) : null,
    closedAt: changing ? now : current.closedAt,
  };
  return { fields, transition: changing ? (to as 'won' | 'lost') : null };
}

export interface StageRef {
  id: string;
  name: string;
  position: number;
}

/**
 * The stage a deal lands in within the target pipeline (`stages` in position order):
 * the requested one, which must belong to that pipeline; else the current one if it does;
 * else the pipeline's first stage.
 */
export function chooseStage<S extends StageRef>(
  stages: readonly S[],
  requested: string | undefined,
  currentStageId?: string,
): S {
  if (requested !== undefined) {
    const stage = stages.find((s) => s.id === requested);
    if (!stage) {
      throw unprocessable(
        "stage_id is not a stage of the deal's pipeline; change pipeline_id to move it to another pipeline",
        'stage_id',
        'not a stage of the pipeline',
      );
    }
    return stage;
  }
  const current = stages.find((s) => s.id === currentStageId);
  if (current) return current;
  if (stages.length === 0) throw unprocessable('The pipeline has no stages', 'pipeline_id', 'has no stages');
  return stages[0];
}
