// Bulk actions on the selected contacts (this page's, or every one the view matches): add or
// remove a tag, assign to a user, delete. Each asks first, naming the count, and runs as
// batchContacts requests; the contacts it could not change are listed with the reason.
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { gql } from '../api/graphql.ts';
import { FormDialog } from '../components/form-dialog.tsx';
import {
  type BatchOperation,
  type BatchResultRow,
  type BulkAction,
  type BulkFailure,
  type BulkTarget,
  bulkFailures,
  bulkOperations,
  chunks,
  confirmQuestion,
  contactsCount,
} from './contacts-model.ts';

export interface Selection {
  ids: Set<string>;
  /** Every contact the view matches, on this page and the next ones. */
  allMatching: boolean;
}

type Kind = BulkAction['kind'];

const TARGET_FIELDS = 'id first_name last_name email tags';

/** Every contact the filter matches, 100 at a time. */
async function matchingTargets(where: Record<string, unknown>, sort: string[]): Promise<BulkTarget[]> {
  const out: BulkTarget[] = [];
  let cursor: string | null = null;
  do {
    const page: { nodes: BulkTarget[]; next_cursor: string | null } = (
      await gql<{ contacts: { nodes: BulkTarget[]; next_cursor: string | null } }>(
        `query ($where: ContactWhere, $sort: [ContactSort!], $cursor: String) {
          contacts(where: $where, sort: $sort, limit: 100, cursor: $cursor) {
            next_cursor nodes { ${TARGET_FIELDS} } } }`,
        { where, sort, cursor },
      )
    ).contacts;
    out.push(...page.nodes);
    cursor = page.next_cursor;
  } while (cursor);
  return out;
}

/** Runs the operations in batches of 1000; the results' indexes count from the first operation. */
async function runBatches(operations: BatchOperation[]): Promise<BatchResultRow[]> {
  const results: BatchResultRow[] = [];
  let offset = 0;
  for (const part of chunks(operations)) {
    const d = await gql<{ batchContacts: { results: BatchResultRow[] } }>(
      `mutation ($input: ContactBatchInput!) { batchContacts(input: $input) {
        results { index id status error { message } } } }`,
      { input: { operations: part } },
    );
    results.push(...d.batchContacts.results.map((r) => ({ ...r, index: r.index + offset })));
    offset += part.length;
  }
  return results;
}

const DONE: Record<Kind, string> = {
  add_tag: 'Tagged',
  remove_tag: 'Untagged',
  assign: 'Assigned',
  delete: 'Deleted',
};

export function BulkActions({
  rows,
  total,
  where,
  sort,
  selection,
  users,
  onSelection,
  onDone,
}: {
  rows: BulkTarget[];
  total: number;
  where: Record<string, unknown>;
  sort: string[];
  selection: Selection;
  users: { id: string; name: string }[];
  onSelection(s: Selection): void;
  onDone(): Promise<void>;
}) {
  const [kind, setKind] = useState<Kind | null>(null);
  const [tag, setTag] = useState('');
  const [userId, setUserId] = useState('');
  const [targets, setTargets] = useState<BulkTarget[] | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [notice, setNotice] = useState('');
  const [failures, setFailures] = useState<BulkFailure[]>([]);
  const status = useRef<HTMLDivElement>(null);
  const focusStatus = useRef(false);

  const count = selection.allMatching ? total : selection.ids.size;
  const pageSelected = rows.length > 0 && rows.every((r) => selection.ids.has(r.id));

  const open = (k: Kind) => {
    setKind(k);
    setTag('');
    setUserId(users[0]?.id ?? '');
    setLoadError(null);
    if (!selection.allMatching) {
      setTargets(rows.filter((r) => selection.ids.has(r.id)));
      return;
    }
    // The question names how many contacts it will change: those matching now, counted first.
    setTargets(null);
    matchingTargets(where, sort).then(setTargets, setLoadError);
  };

  // After the dialog closes, focus goes to the outcome (the buttons that opened it may be gone).
  useLayoutEffect(() => {
    if (kind || !focusStatus.current) return;
    focusStatus.current = false;
    status.current?.focus();
  }, [kind]);

  const action = (): BulkAction | null => {
    if (kind === 'delete') return { kind };
    if (kind === 'assign') {
      const user = users.find((u) => u.id === userId);
      return user ? { kind, userId: user.id, userName: user.name } : null;
    }
    if (kind && tag.trim()) return { kind, tag: tag.trim() };
    return null;
  };
  const current = action();

  const submit = async () => {
    if (!current || !targets) throw new Error(kind === 'assign' ? 'Choose a user.' : 'Give the tag.');
    const { operations, unchanged } = bulkOperations(targets, current);
    const results = await runBatches(operations);
    const failed = bulkFailures(operations, results, targets);
    const done = operations.length - failed.length;
    const parts = [`${DONE[current.kind]} ${contactsCount(done)}.`];
    if (unchanged.length)
      parts.push(
        current.kind === 'add_tag'
          ? `${contactsCount(unchanged.length)} already had the tag.`
          : `${contactsCount(unchanged.length)} did not have the tag.`,
      );
    if (failed.length) parts.push(`${contactsCount(failed.length)} could not be changed:`);
    setNotice(parts.join(' '));
    setFailures(failed);
    focusStatus.current = true;
    onSelection({ ids: new Set(), allMatching: false });
    await onDone();
  };

  const n = targets?.length;
  const question = current && n !== undefined ? confirmQuestion(current, n) : null;
  const titles: Record<Kind, string> = {
    add_tag: 'Add a tag',
    remove_tag: 'Remove a tag',
    assign: 'Assign to a user',
    delete: n === undefined ? 'Delete contacts' : `Delete ${contactsCount(n)}?`,
  };
  const submitLabels: Record<Kind, string> = {
    add_tag: 'Add tag',
    remove_tag: 'Remove tag',
    assign: 'Assign',
    delete: n === undefined ? 'Delete' : `Delete ${contactsCount(n)}`,
  };

  return (
    <>
      <div ref={status} tabIndex={-1} class="bulk-outcome">
        <p role="status">{notice}</p>
        {failures.length > 0 && (
          <ul class="error" role="alert" aria-label="Contacts not changed">
            {failures.map((f) => (
              <li key={f.id}>
                <a href={`/dashboard/contacts/${f.id}`}>{f.label}</a>: {f.message}
              </li>
            ))}
          </ul>
        )}
      </div>
      {count > 0 && (
        <section class="bulk-bar" aria-label="Selected contacts">
          <p>
            <strong>{selection.allMatching ? `All ${contactsCount(total)} matching` : `${count} selected`}</strong>
            {pageSelected && !selection.allMatching && total > rows.length && (
              <>
                {' '}
                <button type="button" class="link" onClick={() => onSelection({ ids: new Set(), allMatching: true })}>
                  Select all {total} matching contacts
                </button>
              </>
            )}{' '}
            <button type="button" class="link" onClick={() => onSelection({ ids: new Set(), allMatching: false })}>
              Clear selection
            </button>
          </p>
          <div class="actions">
            <button type="button" onClick={() => open('add_tag')}>
              Add tag…
            </button>
            <button type="button" onClick={() => open('remove_tag')}>
              Remove tag…
            </button>
            <button type="button" onClick={() => open('assign')}>
              Assign to…
            </button>
            {!selection.allMatching && selection.ids.size === 2 && (
              <a class="button" href={mergeHref([...selection.ids])}>
                Merge these 2…
              </a>
            )}
            <button type="button" class="danger-outline" onClick={() => open('delete')}>
              Delete…
            </button>
          </div>
        </section>
      )}
      {kind && (
        <FormDialog
          title={titles[kind]}
          submitLabel={submitLabels[kind]}
          danger={kind === 'delete'}
          disabled={!targets || !current}
          onSubmit={submit}
          onClose={() => setKind(null)}
        >
          {(kind === 'add_tag' || kind === 'remove_tag') && (
            <label>
              Tag
              <input value={tag} maxLength={100} required onInput={(e) => setTag(e.currentTarget.value)} />
            </label>
          )}
          {kind === 'assign' && (
            <label>
              User
              <select value={userId} onChange={(e) => setUserId(e.currentTarget.value)}>
                {users.map((u) => (
                  <option key={u.id} value={u.id}>
                    {u.name}
                  </option>
                ))}
              </select>
            </label>
          )}
          {loadError ? (
            <p class="error-text" role="alert">
              The matching contacts could not be counted: {String((loadError as Error).message ?? loadError)}
            </p>
          ) : targets === null ? (
            <p role="status">Counting the matching contacts…</p>
          ) : (
            <p class="confirm-question">
              <strong>{question ?? `${contactsCount(targets.length)} selected.`}</strong>
              {kind === 'delete' && ' This cannot be undone.'}
            </p>
          )}
        </FormDialog>
      )}
    </>
  );
}

export const mergeHref = ([a, b]: string[]): string => `/dashboard/contacts/${a}/merge?with=${encodeURIComponent(b)}`;
