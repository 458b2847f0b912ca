// The Contacts list's rules: the view (search, filters, sort) as it is kept in the URL's query
// string, the API filter it stands for, saved views, and the batch operations of bulk actions.
// Pure functions of the page, tested without a browser.

export const CONTACT_STATUSES = ['lead', 'active', 'customer', 'inactive', 'churned'] as const;
export const CONTACT_SOURCES = ['website', 'referral', 'social', 'paid_ads', 'manual', 'api', 'import'] as const;

/** What the list shows: every value as the query string holds it ('' when not set). */
export interface ContactsView {
  q: string;
  status: string;
  source: string;
  tag: string;
  /** A user id, or "none" for contacts assigned to nobody. */
  owner: string;
  created_from: string;
  created_to: string;
  updated_from: string;
  updated_to: string;
  /** A custom field's key, and the value it must have. */
  cf: string;
  cfv: string;
  /** A sort key, descending when it starts with "-". */
  sort: string;
}

export const VIEW_KEYS = [
  'q',
  'status',
  'source',
  'tag',
  'owner',
  'created_from',
  'created_to',
  'updated_from',
  'updated_to',
  'cf',
  'cfv',
  'sort',
] as const satisfies readonly (keyof ContactsView)[];

export const DEFAULT_SORT = '-created_at';

/** The sorts the API offers (ContactSort), by what a person sorts by. */
export const SORTS: { key: string; label: string; api: string[] }[] = [
  { key: '-created_at', label: 'Newest first', api: ['created_at_desc'] },
  { key: 'created_at', label: 'Oldest first', api: ['created_at_asc'] },
  { key: '-updated_at', label: 'Recently updated', api: ['updated_at_desc'] },
  { key: 'updated_at', label: 'Least recently updated', api: ['updated_at_asc'] },
  { key: 'name', label: 'Name A–Z', api: ['last_name_asc', 'first_name_asc'] },
  { key: '-name', label: 'Name Z–A', api: ['last_name_desc', 'first_name_desc'] },
  { key: 'first_name', label: 'First name A–Z', api: ['first_name_asc', 'last_name_asc'] },
  { key: '-first_name', label: 'First name Z–A', api: ['first_name_desc', 'last_name_desc'] },
  { key: 'company', label: 'Company A–Z', api: ['company_asc'] },
  { key: '-company', label: 'Company Z–A', api: ['company_desc'] },
];

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The view a query string names; unknown sorts and malformed dates are dropped. */
export function viewOf(search: string): ContactsView {
  const params = new URLSearchParams(search);
  const view = Object.fromEntries(VIEW_KEYS.map((k) => [k, (params.get(k) ?? '').trim()])) as unknown as ContactsView;
  if (!SORTS.some((s) => s.key === view.sort)) view.sort = DEFAULT_SORT;
  for (const k of ['created_from', 'created_to', 'updated_from', 'updated_to'] as const)
    if (!DATE.test(view[k])) view[k] = '';
  if (!view.cf) view.cfv = '';
  return view;
}

/** The query string of a view ("" for the default one), its keys always in the same order. */
export function queryOf(view: Partial<ContactsView>): string {
  const params = new URLSearchParams();
  for (const k of VIEW_KEYS) {
    const v = (view[k] ?? '').trim();
    if (!v || (k === 'sort' && v === DEFAULT_SORT) || (k === 'cfv' && !view.cf)) continue;
    params.set(k, v);
  }
  const s = params.toString();
  return s ? `?${s}` : '';
}

/** Whether the view narrows the list (a search or any filter). */
export const isFiltered = (view: ContactsView): boolean =>
  VIEW_KEYS.some((k) => k !== 'sort' && k !== 'cfv' && view[k] !== '');

export const sortOf = (view: ContactsView): string[] => (SORTS.find((s) => s.key === view.sort) ?? SORTS[0]).api;

/** The instant a calendar date starts in the browser's time zone. */
export function startOfDay(date: string): string {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(y, m - 1, d).toISOString();
}

/** The instant the day after a calendar date starts: "up to" a date includes that day. */
export function endOfDay(date: string): string {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(y, m - 1, d + 1).toISOString();
}

export type CustomFieldType = 'text' | 'select' | 'number' | 'date' | 'boolean';

/** The condition on a custom field: text contains the value, other types equal it. */
export function customFieldCondition(type: CustomFieldType | undefined, value: string): Record<string, unknown> {
  switch (type) {
    case 'number':
      return { eq: Number(value) };
    case 'boolean':
      return { eq: value === 'true' };
    case 'select':
    case 'date':
      return { eq: value };
    default:
      return { contains: value };
  }
}

const SEARCHED = ['first_name', 'last_name', 'email', 'company'] as const;

/**
 * The `where` (ContactWhere) of a view. Each word searched must be in a name, the email or the
 * company; `custom` gives the custom fields' types.
 */
export function viewWhere(view: ContactsView, custom: Record<string, CustomFieldType> = {}): Record<string, unknown> {
  const and: Record<string, unknown>[] = [];
  const words = view.q.split(/\s+/).filter(Boolean).slice(0, 5);
  for (const word of words) and.push({ or: SEARCHED.map((f) => ({ [f]: { contains: word } })) });
  const where: Record<string, unknown> = {};
  if (and.length) where.and = and;
  if (view.status) where.status = { eq: view.status };
  if (view.source) where.source = { eq: view.source };
  if (view.tag) where.tags = { contains: view.tag };
  if (view.owner === 'none') where.assigned_to = { is_null: true };
  else if (view.owner) where.assigned_to = { eq: view.owner };
  const range = (from: string, to: string) => {
    const r: Record<string, string> = {};
    if (from) r.gte = startOfDay(from);
    if (to) r.lt = endOfDay(to);
    return Object.keys(r).length ? r : null;
  };
  const created = range(view.created_from, view.created_to);
  if (created) where.created_at = created;
  const updated = range(view.updated_from, view.updated_to);
  if (updated) where.updated_at = updated;
  if (view.cf && view.cfv) where.custom_fields = { [view.cf]: customFieldCondition(custom[view.cf], view.cfv) };
  return where;
}

// Saved views: a name and the query string it restores, kept in the browser per workspace.

export interface SavedView {
  name: string;
  query: string;
}

export const savedViewsKey = (workspaceId: string): string => `crm.dashboard.contact-views.${workspaceId}`;

export function parseSavedViews(stored: string | null): SavedView[] {
  try {
    const list = JSON.parse(stored ?? '[]');
    if (!Array.isArray(list)) return [];
    return list.filter(
      (v): v is SavedView => typeof v?.name === 'string' && typeof v?.query === 'string' && v.name.trim() !== '',
    );
  } catch {
    return [];
  }
}

/** The list with this view saved under its name (replacing one of the same name), sorted by name. */
export function withSavedView(list: SavedView[], view: SavedView): SavedView[] {
  const name = view.name.trim();
  return [...list.filter((v) => v.name !== name), { name, query: view.query }].sort((a, b) =>
    a.name.localeCompare(b.name),
  );
}

// Bulk actions: one batchContacts operation per selected contact.

export interface BulkTarget {
  id: string;
  first_name: string;
  last_name: string | null;
  email: string;
  tags: string[];
}

export type BulkAction =
  | { kind: 'add_tag'; tag: string }
  | { kind: 'remove_tag'; tag: string }
  | { kind: 'assign'; userId: string; userName: string }
  | { kind: 'delete' };

export interface BatchOperation {
  op: 'update' | 'delete';
  id: string;
  data?: Record<string, unknown>;
}

/**
 * The operations of an action, and the contacts it leaves as they are (a tag they already have,
 * or do not have to remove).
 */
export function bulkOperations(
  targets: BulkTarget[],
  action: BulkAction,
): { operations: BatchOperation[]; unchanged: BulkTarget[] } {
  const operations: BatchOperation[] = [];
  const unchanged: BulkTarget[] = [];
  for (const t of targets) {
    if (action.kind === 'delete') operations.push({ op: 'delete', id: t.id });
    else if (action.kind === 'assign')
      operations.push({ op: 'update', id: t.id, data: { assigned_to: action.userId } });
    else if (action.kind === 'add_tag') {
      if (t.tags.includes(action.tag)) unchanged.push(t);
      else operations.push({ op: 'update', id: t.id, data: { tags: [...t.tags, action.tag] } });
    } else if (!t.tags.includes(action.tag)) unchanged.push(t);
    else operations.push({ op: 'update', id: t.id, data: { tags: t.tags.filter((x) => x !== action.tag) } });
  }
  return { operations, unchanged };
}

/** Splits a list into runs of at most `size` (a batch takes at most 1000 operations). */
export function chunks<T>(list: T[], size = 1000): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

export interface BatchResultRow {
  index: number;
  id: string | null;
  status: number;
  error: { message: string } | null;
}

export interface BulkFailure {
  id: string;
  label: string;
  message: string;
}

/** The failed operations of a batch, each named by its contact. */
export function bulkFailures(
  operations: BatchOperation[],
  results: BatchResultRow[],
  targets: BulkTarget[],
): BulkFailure[] {
  const byId = new Map(targets.map((t) => [t.id, t]));
  return results
    .filter((r) => r.error || r.status >= 400)
    .map((r) => {
      const id = operations[r.index]?.id ?? r.id ?? '';
      const t = byId.get(id);
      const name = t ? [t.first_name, t.last_name].filter(Boolean).join(' ') : id;
      return { id, label: t ? `${name} (${t.email})` : id, message: r.error?.message ?? `status ${r.status}` };
    });
}

export const contactsCount = (n: number): string => `${n} ${n === 1 ? 'contact' : 'contacts'}`;

/** The question a bulk action asks before it runs, with the count. */
export function confirmQuestion(action: BulkAction, count: number): string {
  const who = contactsCount(count);
  switch (action.kind) {
    case 'delete':
      return `Delete ${who}?`;
    case 'add_tag':
      return `Add the tag “${action.tag}” to ${who}?`;
    case 'remove_tag':
      return `Remove the tag “${action.tag}” from ${who}?`;
    case 'assign':
      return `Assign ${who} to ${action.userName}?`;
  }
}
