import { describe, expect, it } from 'vitest';
import { AppError } from '../src/errors.ts';
import { applyStatus, chooseStage, type StatusFields } from '../src/schema/deal/deal.rules.ts';
import {
  assertDefaultKept,
  assertPipelineDeletable,
  assertStageDeletable,
  reorder,
} from '../src/schema/pipeline/pipeline.rules.ts';

const now = new Date('2030-01-02T03:04:05Z');
const earlier = new Date('2029-12-31T00:00:00Z');
const open: StatusFields = { status: 'open', wonReason: null, lostReason: null, competitor: null, closedAt: null };
const won: StatusFields = { status: 'won', wonReason: 'price', lostReason: null, competitor: null, closedAt: earlier };
const lost: StatusFields = {
  status: 'lost',
  wonReason: null,
  lostReason: 'budget',
  competitor: 'Rival',
  closedAt: earlier,
};

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof AppError ? err.code : 'not an AppError';
  }
  return undefined;
}

describe('applyStatus', () => {
  it('open → won records the reason and the closing time', () => {
    expect(applyStatus(open, { status: 'won', won_reason: 'fit' }, now)).toEqual({
      fields: { status: 'won', wonReason: 'fit', lostReason: null, competitor: null, closedAt: now },
      transition: 'won',
    });
  });

  it('open → lost records reason and competitor', () => {
    expect(applyStatus(open, { status: 'lost', lost_reason: 'budget', competitor: 'Rival' }, now)).toEqual({
      fields: { status: 'lost', wonReason: null, lostReason: 'budget', competitor: 'Rival', closedAt: now },
      transition: 'lost',
    });
  });

  it('open → won without a reason leaves it empty', () => {
    expect(applyStatus(open, { status: 'won' }, now).fields.wonReason).toBeNull();
  });

  it.each([
    ['won', won],
    ['lost', lost],
  ])('reopening a %s deal clears reasons, competitor and closing time', (_name, from) => {
    expect(applyStatus(from, { status: 'open' }, now)).toEqual({ fields: open, transition: 'reopened' });
  });

  it('won ↔ lost directly is a 422', () => {
    expect(code(() => applyStatus(won, { status: 'lost' }, now))).toBe('unprocessable_entity');
    expect(code(() => applyStatus(lost, { status: 'won', won_reason: 'x' }, now))).toBe('unprocessable_entity');
  });

  it('no status change keeps the status fields, and edits the reason of the current status', () => {
    expect(applyStatus(won, {}, now)).toEqual({ fields: won, transition: null });
    expect(applyStatus(won, { status: 'won' }, now)).toEqual({ fields: won, transition: null });
    expect(applyStatus(lost, { competitor: 'Other' }, now)).toEqual({
      fields: { ...lost, competitor: 'Other' },
      transition: null,
    });
    expect(applyStatus(open, {}, now)).toEqual({ fields: open, transition: null });
  });

  it('a reason for another status than the resulting one is a 422; clearing one is fine', () => {
    expect(code(() => applyStatus(open, { won_reason: 'x' }, now))).toBe('unprocessable_entity');
    expect(code(() => applyStatus(open, { status: 'won', lost_reason: 'x' }, now))).toBe('unprocessable_entity');
    expect(code(() => applyStatus(open, { status: 'won', competitor: 'x' }, now))).toBe('unprocessable_entity');
    expect(code(() => applyStatus(won, { status: 'open', won_reason: 'x' }, now))).toBe('unprocessable_entity');
    expect(applyStatus(open, { won_reason: null, competitor: null }, now).transition).toBeNull();
  });
});

describe('chooseStage', () => {
  const stages = [
    { id: 's1', name: 'One', position: 1 },
    { id: 's2', name: 'Two', position: 2 },
  ];

  it('takes the requested stage of the pipeline', () => {
    expect(chooseStage(stages, 's2').id).toBe('s2');
  });

  it('refuses a stage that is not in the pipeline with a 422', () => {
    expect(code(() => chooseStage(stages, 'elsewhere'))).toBe('unprocessable_entity');
  });

  it('keeps the current stage when it belongs to the pipeline, else takes the first', () => {
    expect(chooseStage(stages, undefined, 's2').id).toBe('s2');
    expect(chooseStage(stages, undefined, 'other-pipeline-stage').id).toBe('s1');
    expect(chooseStage(stages, undefined).id).toBe('s1');
  });

  it('a pipeline without stages cannot take a deal', () => {
    expect(code(() => chooseStage([], undefined))).toBe('unprocessable_entity');
  });
});

describe('pipeline rules', () => {
  it('reorder moves or inserts an id and renumbers without gaps', () => {
    expect(reorder(['a', 'b', 'c'], 'c', 1)).toEqual(['c', 'a', 'b']);
    expect(reorder(['a', 'b', 'c'], 'a', 3)).toEqual(['b', 'c', 'a']);
    expect(reorder(['a', 'b'], 'new', 2)).toEqual(['a', 'new', 'b']);
    expect(reorder(['a', 'b'], 'new', 3)).toEqual(['a', 'b', 'new']);
  });

  it('reorder refuses positions outside 1..n with a 400', () => {
    expect(code(() => reorder(['a', 'b'], 'a', 3))).toBe('validation_error');
    expect(code(() => reorder(['a', 'b'], 'new', 4))).toBe('validation_error');
    expect(code(() => reorder(['a'], 'a', 0))).toBe('validation_error');
  });

  it('pipelines with deals, and the last pipeline, are not deleted', () => {
    expect(code(() => assertPipelineDeletable({ dealCount: 1, pipelineCount: 3 }))).toBe('conflict');
    expect(code(() => assertPipelineDeletable({ dealCount: 0, pipelineCount: 1 }))).toBe('conflict');
    expect(code(() => assertPipelineDeletable({ dealCount: 0, pipelineCount: 2 }))).toBeUndefined();
  });

  it('stages with deals, and the last stage, are not deleted', () => {
    expect(code(() => assertStageDeletable({ dealCount: 2, stageCount: 5 }))).toBe('conflict');
    expect(code(() => assertStageDeletable({ dealCount: 0, stageCount: 1 }))).toBe('conflict');
    expect(code(() => assertStageDeletable({ dealCount: 0, stageCount: 2 }))).toBeUndefined();
  });

  it('the default pipeline is changed by choosing another, not by unsetting it', () => {
    expect(code(() => assertDefaultKept(true, false))).toBe('unprocessable_entity');
    expect(code(() => assertDefaultKept(true, true))).toBeUndefined();
    expect(code(() => assertDefaultKept(false, false))).toBeUndefined();
  });
});
