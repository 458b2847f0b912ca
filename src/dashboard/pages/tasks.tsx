// Tasks: my open tasks, the overdue ones, those due today and everyone's by assignee, as views kept
// in the URL (?view=…) so each can be bookmarked. Tasks are created here and completed with a note.
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { gql } from '../api/graphql.ts';
import { ErrorMessage } from '../components/error-message.tsx';
import { PromptDialog } from '../components/prompt-dialog.tsx';
import { formatDateTime } from '../lib/format.ts';
import { useAction } from '../lib/use-action.ts';
import { useQuery } from '../lib/use-query.ts';
import { useTitle } from '../lib/use-title.ts';
import { useSession } from '../session-context.ts';
import { NewTaskForm } from './new-task-form.tsx';
import {
  completeTask,
  dueState,
  groupByAssignee,
  loadTasks,
  TASK_VIEWS,
  taskViewOf,
  viewWhere,
  type TaskRow,
  type TaskView,
} from './task-model.ts';

const EMPTY: Record<TaskView, string> = {
  mine: 'No open tasks are assigned to you.',
  overdue: 'No open task is overdue.',
  today: 'No open task is due today.',
  assignee: 'No open tasks.',
};

function Due({ due, now }: { due: string | null; now: Date }) {
  const state = dueState(due, now);
  if (state === 'none') return <span class="muted">No due date</span>;
  const when = <time dateTime={due!}>{formatDateTime(due)}</time>;
  if (state === 'overdue')
    return (
      <span class="overdue">
        <strong>Overdue</strong>: was due {when}
      </span>
    );
  return <span>{state === 'today' ? <>Due today, {when}</> : <>Due {when}</>}</span>;
}

/** The dashboard's pages of the records a task can be about (a project has none). */
const RELATED_PAGES = { contact: 'contacts', company: 'companies', deal: 'deals' } as const;

function Related({ related }: { related: TaskRow['related_to'] }) {
  if (!related) return null;
  const name = related.name ?? `a ${related.type} no longer readable`;
  if (related.type === 'project') return <span>About project {related.id}</span>;
  return (
    <span>
      About {related.type} <a href={`/dashboard/${RELATED_PAGES[related.type]}/${related.id}`}>{name}</a>
    </span>
  );
}

function Reminder({ reminder }: { reminder: TaskRow['reminder'] }) {
  if (!reminder) return null;
  const channel = reminder.type === 'email' ? 'email' : 'push notification';
  if (reminder.sent_at)
    return (
      <span>
        Reminder sent by {channel} {formatDateTime(reminder.sent_at)}
      </span>
    );
  return (
    <span>
      Reminder by {channel}{' '}
      {reminder.remind_at ? `at ${formatDateTime(reminder.remind_at)}` : `${reminder.before_minutes} min before due`}
    </span>
  );
}

function TaskItem({ task, now, onComplete }: { task: TaskRow; now: Date; onComplete: (t: TaskRow) => void }) {
  return (
    <li class={dueState(task.due_date, now) === 'overdue' ? 'task overdue-task' : 'task'} data-task-id={task.id}>
      <div class="task-main">
        <span class="task-title">{task.title}</span>
        <span class="task-meta">
          <Due due={task.due_date} now={now} />
          <Related related={task.related_to} />
          <span>{task.assignee_name ? `Assigned to ${task.assignee_name}` : 'Unassigned'}</span>
          <Reminder reminder={task.reminder} />
        </span>
      </div>
      <button type="button" aria-label={`Complete ${task.title}`} onClick={() => onComplete(task)}>
        Complete
      </button>
    </li>
  );
}

export function TasksPage() {
  useTitle('Tasks');
  const session = useSession();
  const { query } = useLocation();
  const view = taskViewOf(query.view);
  const [more, setMore] = useState<TaskRow[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [completing, setCompleting] = useState<TaskRow | null>(null);
  const [done, setDone] = useState('');
  const status = useRef<HTMLParagraphElement>(null);
  const now = new Date();
  const where = viewWhere(view, session.user.id, now);
  const { error, busy, run } = useAction();

  const users = useQuery(
    () =>
      gql<{ users: { nodes: { id: string; name: string }[] } }>(
        '{ users(limit: 100, filter: { active: true }) { nodes { id name } } }',
      ).then((d) => d.users.nodes),
    [],
  );
  const first = useQuery(async () => {
    const page = await loadTasks(where, null);
    setMore([]);
    setCursor(page.next_cursor);
    return page;
  }, [view]);
  const loadMore = () =>
    run(async () => {
      const page = await loadTasks(where, cursor);
      setMore((m) => [...m, ...page.nodes]);
      setCursor(page.next_cursor);
    });
  // The completed task's button is gone: focus goes to the message saying so, once the dialog is closed.
  const focusStatus = useRef(false);
  useLayoutEffect(() => {
    if (completing || !focusStatus.current) return;
    focusStatus.current = false;
    status.current?.focus();
  }, [completing]);

  const tasks = [...(first.data?.nodes ?? []), ...more];
  const item = (t: TaskRow) => <TaskItem key={t.id} task={t} now={now} onComplete={setCompleting} />;
  const label = TASK_VIEWS.find((v) => v.id === view)!.label;

  return (
    <>
      <h1>Tasks</h1>
      <nav aria-label="Task views">
        <ul class="tabs">
          {TASK_VIEWS.map((v) => (
            <li key={v.id}>
              <a href={`/dashboard/tasks?view=${v.id}`} aria-current={v.id === view ? 'page' : undefined}>
                {v.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <p ref={status} tabIndex={-1} role="status" class="hint">
        {done}
      </p>
      <ErrorMessage error={first.error ?? error} />
      <section aria-labelledby="task-list-title">
        <h2 id="task-list-title">
          {label}
          {first.data && (
            <span class="hint">
              {' '}
              · {first.data.total} open {first.data.total === 1 ? 'task' : 'tasks'}
            </span>
          )}
        </h2>
        {first.loading && <p role="status">Loading…</p>}
        {first.data && tasks.length === 0 && <p>{EMPTY[view]}</p>}
        {view === 'assignee' ? (
          groupByAssignee(tasks).map((g) => (
            <section key={g.id ?? 'none'} class="task-group" aria-label={g.name}>
              <h3>
                {g.name} <span class="hint">({g.tasks.length})</span>
              </h3>
              <ul class="tasks">{g.tasks.map(item)}</ul>
            </section>
          ))
        ) : (
          <ul class="tasks">{tasks.map(item)}</ul>
        )}
        {cursor && !first.loading && (
          <button type="button" disabled={busy} onClick={() => void loadMore()}>
            Show more tasks
          </button>
        )}
      </section>
      <section class="panel">
        <NewTaskForm
          users={users.data ?? []}
          me={session.user.id}
          onCreated={async (title) => {
            await first.reload();
            setDone(`Task “${title}” created.`);
          }}
        />
        <ErrorMessage error={users.error} />
      </section>
      {completing && (
        <PromptDialog
          title={`Complete “${completing.title}”`}
          fieldLabel="Completion note"
          submitLabel="Complete task"
          onSubmit={async (note) => {
            try {
              await completeTask(completing.id, note);
            } catch (err) {
              // Refused: the task may have changed meanwhile (cancelled, completed), so the list is read again.
              void first.reload();
              throw err;
            }
            await first.reload();
            setDone(`Task “${completing.title}” completed.`);
            focusStatus.current = true;
          }}
          onClose={() => setCompleting(null)}
        />
      )}
    </>
  );
}
