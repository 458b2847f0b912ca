// The pipelines page's rules: where Up, Down and a drop put a stage, the order shown while the API
// renumbers, why a stage may not be deleted, and the stage names typed one per line.
import { describe, expect, it } from 'vitest';
import {
  deleteRefusal,
  dropPosition,
  reordered,
  stageNames,
  stepPosition,
} from '../src/dashboard/pages/pipelines-model.ts';

const stages = [{ id: 'a' }, { id: 'b' }, { id: 'c' }];

describe('stepPosition', () => {
  it('is one place up or down, 1-based', () => {
    expect(stepPosition(stages, 'b', -1)).toBe(1);
    expect(stepPosition(stages, 'b', 1)).toBe(3);
  });
  it('is null at either end and for an unknown stage', () => {
    expect(stepPosition(stages, 'a', -1)).toBeNull();
    expect(stepPosition(stages, 'c', 1)).toBeNull();
    expect(stepPosition(stages, 'x', 1)).toBeNull();
  });
});

describe('dropPosition', () => {
  it('takes the target’s place: after a later stage, before an earlier one', () => {
    expect(dropPosition(stages, 'a', 'c')).toBe(3);
    expect(dropPosition(stages, 'c', 'a')).toBe(1);
    expect(dropPosition(stages, 'a', 'b')).toBe(2);
  });
  it('is null when dropped on itself or on something unknown', () => {
    expect(dropPosition(stages, 'b', 'b')).toBeNull();
    expect(dropPosition(stages, 'b', 'x')).toBeNull();
  });
});

describe('reordered', () => {
  it('puts the stage at the position as the API does, the others shifting', () => {
    expect(reordered(stages, 'a', 3).map((s) => s.id)).toEqual(['b', 'c', 'a']);
    expect(reordered(stages, 'c', 1).map((s) => s.id)).toEqual(['c', 'a', 'b']);
    expect(reordered(stages, 'b', 2).map((s) => s.id)).toEqual(['a', 'b', 'c']);
  });
  it('agrees with dropPosition and stepPosition', () => {
    expect(reordered(stages, 'a', dropPosition(stages, 'a', 'c')!).map((s) => s.id)).toEqual(['b', 'c', 'a']);
    expect(reordered(stages, 'c', stepPosition(stages, 'c', -1)!).map((s) => s.id)).toEqual(['a', 'c', 'b']);
  });
  it('leaves the list as it is for an unknown stage, and clamps the position', () => {
    expect(reordered(stages, 'x', 1).map((s) => s.id)).toEqual(['a', 'b', 'c']);
    expect(reordered(stages, 'a', 99).map((s) => s.id)).toEqual(['b', 'c', 'a']);
  });
});

describe('deleteRefusal', () => {
  it('keeps a stage that holds deals, open or closed, saying how many', () => {
    expect(deleteRefusal({ deal_count: 1 }, 3)).toMatch(/^Holds 1 deal \(open or closed\)/);
    expect(deleteRefusal({ deal_count: 4 }, 3)).toMatch(/^Holds 4 deals/);
  });
  it('keeps the last stage of a pipeline', () => {
    expect(deleteRefusal({ deal_count: 0 }, 1)).toBe('A pipeline needs at least one stage.');
  });
  it('lets an empty stage go, and leaves an unknown count to the API', () => {
    expect(deleteRefusal({ deal_count: 0 }, 2)).toBeNull();
    expect(deleteRefusal({ deal_count: null }, 2)).toBeNull();
  });
});

describe('stageNames', () => {
  it('reads one name a line, trimmed, blank lines left out', () => {
    expect(stageNames(' Intro \r\n\nPilot\n  \nContract\n')).toEqual(['Intro', 'Pilot', 'Contract']);
    expect(stageNames('')).toEqual([]);
  });
});
