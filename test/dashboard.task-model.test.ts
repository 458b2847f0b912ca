// The Tasks page's rules: which open tasks each view asks for, due dates in words and the grouping
// by assignee. Pure functions of the page, tested without a browser.
import { describe, expect, it } from 'vitest';
import { dueState, groupByAssignee, taskViewOf, viewWhere, type TaskRow } from '../src/dashboard/pages/task-model.ts';

const now = new Date(2026, 10, 27, 15, 30);
const open = { status: { in: ['pending', 'in_progress'] } };

const task = (id: string, assignee: [string, string] | null): TaskRow => ({
  id,
  title: id,
  status: 'pending',
  due_date: null,
  assignee_id: assignee?.[0] ?? null,
  assignee_name: assignee?.[1] ?? null,
  related_to: null,
  reminder: null,
});

describe('task views', () => {
  it('reads the view from the URL, "My tasks" when there is none or an unknown one', () => {
    expect(taskViewOf('overdue')).toBe('overdue');
    expect(taskViewOf(undefined)).toBe('mine');
    expect(taskViewOf('everything')).toBe('mine');
  });

  it('asks for open tasks only: mine by assignee, overdue before now, today within the local day', () => {
    expect(viewWhere('mine', 'usr_1', now)).toEqual({ ...open, assignee_id: { eq: 'usr_1' } });
    expect(viewWhere('overdue', 'usr_1', now)).toEqual({ ...open, due_date: { lt: now.toISOString() } });
    expect(viewWhere('today', 'usr_1', now)).toEqual({
      ...open,
      due_date: {
        gte: new Date(2026, 10, 27).toISOString(),
        lt: new Date(2026, 10, 28).toISOString(),
      },
    });
    expect(viewWhere('assignee', 'usr_1', now)).toEqual(open);
  });
});

describe('due dates', () => {
  it('is overdue once passed, due today until local midnight, later after', () => {
    expect(dueState(null, now)).toBe('none');
    expect(dueState(new Date(2026, 10, 27, 15, 29).toISOString(), now)).toBe('overdue');
    expect(dueState(new Date(2026, 10, 27, 23, 59).toISOString(), now)).toBe('today');
    expect(dueState(new Date(2026, 10, 28, 0, 0).toISOString(), now)).toBe('later');
  });
});

describe('grouping by assignee', () => {
  it('groups by name with the unassigned last, keeping each group in list order', () => {
    const groups = groupByAssignee([
      task('a', null),
      task('b', ['u2', 'Zoe']),
      task('c', ['u1', 'Ada']),
      task('d', ['u2', 'Zoe']),
    ]);
    expect(groups.map((g) => [g.name, g.tasks.map((t) => t.id)])).toEqual([
      ['Ada', ['c']],
      ['Zoe', ['b', 'd']],
      ['Unassigned', ['a']],
    ]);
  });
});
