import { describe, expect, it } from 'vitest';
import type { Task } from '../src/db/generated/client/client.ts';
import { AppError } from '../src/errors.ts';
import { httpStatus } from '../src/errors.ts';
import {
  becameCompleted,
  changedFields,
  completedAtAfter,
  completion,
  isOpen,
  newlyAssigned,
  notificationResets,
  priorityRank,
  reminderAt,
} from '../src/schema/task/task.rules.ts';

const NOW = new Date('2030-01-01T12:00:00Z');
const EARLIER = new Date('2029-12-31T08:00:00Z');

function task(extra: Partial<Task> = {}): Task {
  return {
    id: 'task_1',
    workspaceId: 'ws_1',
    title: 'T',
    description: null,
    status: 'pending',
    priority: 'medium',
    type: 'todo',
    assigneeId: null,
    dueDate: null,
    relatedToType: null,
    relatedToId: null,
    reminderType: null,
    reminderBeforeMinutes: null,
    reminderAt: null,
    reminderSentAt: null,
    overdueNotifiedAt: null,
    completionNote: null,
    completedAt: null,
    createdBy: null,
    externalId: null,
    version: 1,
    createdAt: EARLIER,
    updatedAt: EARLIER,
    ...extra,
  };
}

function errorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
  }
  throw new Error('expected an AppError');
}

describe('completion', () => {
  it('completes open tasks', () => {
    expect(completion('pending')).toBe('complete');
    expect(completion('in_progress')).toBe('complete');
  });
  it('leaves a completed task as it is', () => {
    expect(completion('completed')).toBe('unchanged');
  });
  it('refuses a cancelled task with 422', () => {
    const err = errorOf(() => completion('cancelled'));
    expect(err.code).toBe('unprocessable_entity');
    expect(httpStatus(err.code)).toBe(422);
  });
  it('knows which statuses are open', () => {
    expect(['pending', 'in_progress', 'completed', 'cancelled'].map(isOpen)).toEqual([true, true, false, false]);
  });
});

describe('completedAtAfter', () => {
  it('stamps now on entering completed (also on create)', () => {
    expect(completedAtAfter(null, 'completed', NOW)).toEqual(NOW);
    expect(completedAtAfter({ status: 'in_progress', completedAt: null }, 'completed', NOW)).toEqual(NOW);
  });
  it('keeps the first stamp while completed', () => {
    expect(completedAtAfter({ status: 'completed', completedAt: EARLIER }, 'completed', NOW)).toEqual(EARLIER);
  });
  it('clears it when reopened or cancelled', () => {
    expect(completedAtAfter({ status: 'completed', completedAt: EARLIER }, 'pending', NOW)).toBeNull();
    expect(completedAtAfter({ status: 'completed', completedAt: EARLIER }, 'cancelled', NOW)).toBeNull();
  });
});

describe('event triggers', () => {
  it('task.completed only on entering completed', () => {
    expect(becameCompleted(null, 'completed')).toBe(true);
    expect(becameCompleted('pending', 'completed')).toBe(true);
    expect(becameCompleted('completed', 'completed')).toBe(false);
    expect(becameCompleted('pending', 'cancelled')).toBe(false);
  });
  it('task.assigned on a new assignee, not on unassignment or the same one', () => {
    expect(newlyAssigned(null, 'usr_1')).toBe(true);
    expect(newlyAssigned('usr_1', 'usr_2')).toBe(true);
    expect(newlyAssigned('usr_1', 'usr_1')).toBe(false);
    expect(newlyAssigned('usr_1', null)).toBe(false);
    expect(newlyAssigned(null, null)).toBe(false);
  });
});

describe('reminderAt', () => {
  it('is before_minutes ahead of the due date', () => {
    expect(reminderAt(NOW, { before_minutes: 90 })).toEqual(new Date('2030-01-01T10:30:00Z'));
    expect(reminderAt(NOW, { before_minutes: 0 })).toEqual(NOW);
  });
  it('is null without a reminder', () => {
    expect(reminderAt(NOW, null)).toBeNull();
    expect(reminderAt(null, null)).toBeNull();
  });
  it('needs a due date (422)', () => {
    expect(errorOf(() => reminderAt(null, { before_minutes: 5 })).code).toBe('unprocessable_entity');
  });
});

describe('notificationResets', () => {
  const base = { dueDate: NOW, reminderAt: EARLIER };
  it('keeps the marks while nothing moved', () => {
    expect(notificationResets(base, { dueDate: new Date(NOW), reminderAt: new Date(EARLIER) })).toEqual({});
  });
  it('re-arms overdue when the due date moves, the reminder when it moves', () => {
    expect(notificationResets(base, { dueDate: null, reminderAt: EARLIER })).toEqual({ overdueNotifiedAt: null });
    expect(notificationResets(base, { dueDate: NOW, reminderAt: null })).toEqual({ reminderSentAt: null });
    expect(notificationResets({ dueDate: null, reminderAt: null }, base)).toEqual({
      overdueNotifiedAt: null,
      reminderSentAt: null,
    });
  });
});

describe('priorityRank', () => {
  it('orders by urgency', () => {
    const sorted = ['high', 'low', 'urgent', 'medium'].sort((a, b) => priorityRank(a) - priorityRank(b));
    expect(sorted).toEqual(['low', 'medium', 'high', 'urgent']);
  });
});

describe('changedFields', () => {
  it('lists the API fields that differ', () => {
    expect(changedFields(task(), task())).toEqual([]);
    expect(changedFields(task(), task({ title: 'U', assigneeId: 'usr_1', dueDate: NOW }))).toEqual([
      'title',
      'assignee_id',
      'due_date',
    ]);
    expect(changedFields(task(), task({ relatedToType: 'deal', relatedToId: 'deal_1' }))).toEqual(['related_to']);
    expect(
      changedFields(
        task({ reminderType: 'email', reminderBeforeMinutes: 5 }),
        task({ reminderType: 'email', reminderBeforeMinutes: 10 }),
      ),
    ).toEqual(['reminder']);
  });
  it('ignores bookkeeping columns', () => {
    expect(
      changedFields(task(), task({ updatedAt: NOW, reminderSentAt: NOW, overdueNotifiedAt: NOW, reminderAt: NOW })),
    ).toEqual([]);
  });
});
