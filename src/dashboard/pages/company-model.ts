// Companies in the dashboard: what the pages ask the API for, and the rules they follow (the list's
// sort and search kept in the URL, the form's values as the API's input, a timeline entry in words).
import { ApiError } from '../api/errors.ts';
import { gql } from '../api/graphql.ts';
import type { CursorPage } from '../lib/use-cursor-pages.ts';

export interface CompanyRow {
  id: string;
  name: string;
  domain: string | null;
  industry: string | null;
  size: number | null;
  created_at: string;
}

export interface Company extends CompanyRow {
  phone: string | null;
  tags: string[];
  owner_id: string | null;
  owner: { id: string; name: string } | null;
  updated_at: string;
  version: number;
}

export interface CompanyPage extends CursorPage<CompanyRow> {
  total: number;
}

export interface CompanyContact {
  id: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  job_title: string | null;
}

export interface CompanyDeal {
  id: string;
  title: string;
  value: number | null;
  currency: string;
  status: string;
  stage_name: string;
}

export interface CompanyActivity {
  id: string;
  type: string;
  subject: string | null;
  occurred_at: string;
  contact: { id: string; first_name: string | null; last_name: string | null } | null;
}

export interface CompanyTimelineEntry {
  id: string;
  type: string;
  summary: string | null;
  occurred_at: string;
  actor: { type: string; id: string; name: string } | null;
}

/** The list's orders, as the API names them; the first is the default. */
export const COMPANY_SORTS = [
  { value: 'created_at_desc', label: 'Newest first' },
  { value: 'created_at_asc', label: 'Oldest first' },
  { value: 'name_asc', label: 'Name, A to Z' },
  { value: 'name_desc', label: 'Name, Z to A' },
  { value: 'updated_at_desc', label: 'Recently changed' },
] as const;

export type CompanySort = (typeof COMPANY_SORTS)[number]['value'];

export const DEFAULT_SORT: CompanySort = 'created_at_desc';

/** The sort named in the URL; the default for none or one the list does not offer. */
export function sortOf(param: string | null | undefined): CompanySort {
  return COMPANY_SORTS.find((s) => s.value === param)?.value ?? DEFAULT_SORT;
}

/** The list's state as a URL query ("?q=acme&sort=name_asc"); the defaults are left out, '' when both are. */
export function listQuery(q: string, sort: CompanySort): string {
  const params = new URLSearchParams();
  if (q) params.set('q', q);
  if (sort !== DEFAULT_SORT) params.set('sort', sort);
  const s = params.toString();
  return s ? `?${s}` : '';
}

/** What the list's caption says: how many companies there are, or how many match the search. */
export function countLabel(total: number, q: string): string {
  const companies = total === 1 ? 'company' : 'companies';
  return q ? `${total} ${companies} ${total === 1 ? 'matches' : 'match'} “${q}”` : `${total} ${companies}`;
}

/** The fields the company form fills in, as text. */
export interface CompanyFields {
  name: string;
  domain: string;
  industry: string;
  size: string;
  phone: string;
  tags: string;
}

export const EMPTY_COMPANY: CompanyFields = { name: '', domain: '', industry: '', size: '', phone: '', tags: '' };

/** A list of tags as typed: separated by commas, blanks dropped. */
export const tagsOf = (text: string) =>
  text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

/**
 * The form's values as the API's input for a new company: blank fields are left out. The size is
 * sent as the number typed (a fraction or a negative number is the API's to refuse, in its words);
 * text that is no number at all is sent as it is, so the API names the field.
 */
export function createInput(v: CompanyFields): Record<string, unknown> {
  const input: Record<string, unknown> = { name: v.name.trim() };
  for (const key of ['domain', 'industry', 'phone'] as const) if (v[key].trim()) input[key] = v[key].trim();
  if (v.size.trim()) input.size = sizeOf(v.size);
  const tags = tagsOf(v.tags);
  if (tags.length) input.tags = tags;
  return input;
}

/** A size as typed: a number when it reads as one, else the text itself (for the API to refuse). */
export function sizeOf(text: string): number | string | null {
  const t = text.trim();
  if (t === '') return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : t;
}

/** An event name in words, capitalised: "deal.stage_changed" → "Deal stage changed". */
export function eventInWords(type: string): string {
  const words = type.replace(/[._]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * A timeline entry in words. The API's summary is used when it is a sentence; when there is none
 * (a record the user may not read) or it is an event's code, the code is put in words instead, and
 * an update that names no field says just "Updated". A sentence starts with a capital ("Call logged: …").
 */
export function timelineText(e: Pick<CompanyTimelineEntry, 'type' | 'summary'>): string {
  const s = e.summary?.trim().replace(/:$/, '');
  if (!s || /^[a-z_]+(\.[a-z_]+)+$/.test(s)) return eventInWords(e.type);
  return s.charAt(0).toUpperCase() + s.slice(1);
}

const LIST_FIELDS = 'total next_cursor nodes { id name domain industry size created_at }';
const PAGE_SIZE = 50;

export function loadCompanies(q: string, sort: CompanySort, cursor: string | null): Promise<CompanyPage> {
  return q
    ? gql<{ searchCompanies: CompanyPage }>(
        `query ($q: String!, $cursor: String) { searchCompanies(q: $q, limit: ${PAGE_SIZE}, cursor: $cursor) {
          ${LIST_FIELDS} } }`,
        { q, cursor },
      ).then((d) => d.searchCompanies)
    : gql<{ companies: CompanyPage }>(
        `query ($cursor: String, $sort: [CompanySort!]) {
          companies(limit: ${PAGE_SIZE}, cursor: $cursor, sort: $sort) { ${LIST_FIELDS} } }`,
        { cursor, sort: [sort, 'created_at_desc'] },
      ).then((d) => d.companies);
}

const COMPANY_FIELDS = `id name domain industry size phone tags owner_id owner { id name }
  created_at updated_at version`;

export const loadCompany = (id: string) =>
  gql<{ company: Company }>(`query ($id: ID!) { company(id: $id) { ${COMPANY_FIELDS} } }`, { id }).then(
    (d) => d.company,
  );

export const createCompany = (input: Record<string, unknown>) =>
  gql<{ createCompany: { id: string } }>(
    'mutation ($input: CompanyCreateInput!) { createCompany(input: $input) { id } }',
    { input },
  ).then((d) => d.createCompany);

export const CONFLICT_MESSAGE =
  'Someone else changed this company meanwhile: reload to see their change, then edit again.';

/** The page shows a change made elsewhere once its editors close: cancelling shows it. */
export const EDIT_CONFLICT_MESSAGE =
  'Someone else changed this company meanwhile, so this was not saved: cancel to see their change, then edit again.';

/**
 * Changes a company at the version shown. A change someone else saved meanwhile is refused by the
 * API (412), never overwritten; the refusal is said in words the person can act on.
 */
export async function updateCompany(company: Company, input: Record<string, unknown>): Promise<Company> {
  try {
    const d = await gql<{ updateCompany: Company }>(
      `mutation ($id: ID!, $version: Int, $input: CompanyUpdateInput!) {
        updateCompany(id: $id, expected_version: $version, input: $input) { ${COMPANY_FIELDS} } }`,
      { id: company.id, version: company.version, input },
    );
    return d.updateCompany;
  } catch (err) {
    if (err instanceof ApiError && err.status === 412) throw new ApiError(EDIT_CONFLICT_MESSAGE, 412, err.code);
    throw err;
  }
}

const RELATED_PAGE = 25;

export const loadCompanyContacts = (companyId: string, cursor: string | null) =>
  gql<{ companyContacts: CursorPage<CompanyContact> & { total: number } }>(
    `query ($id: ID!, $cursor: String) { companyContacts(companyId: $id, limit: ${RELATED_PAGE}, cursor: $cursor,
      sort: [first_name_asc, created_at_desc]) {
      total next_cursor nodes { id first_name last_name email job_title } } }`,
    { id: companyId, cursor },
  ).then((d) => d.companyContacts);

export const loadCompanyDeals = (companyId: string, cursor: string | null) =>
  gql<{ companyDeals: CursorPage<CompanyDeal> & { total: number } }>(
    `query ($id: ID!, $cursor: String) { companyDeals(companyId: $id, limit: ${RELATED_PAGE}, cursor: $cursor) {
      total next_cursor nodes { id title value currency status stage_name } } }`,
    { id: companyId, cursor },
  ).then((d) => d.companyDeals);

/** Activities logged with the company and with its contacts, newest first. */
export const loadCompanyActivities = (companyId: string, cursor: string | null) =>
  gql<{ companyActivities: CursorPage<CompanyActivity> }>(
    `query ($id: ID!, $cursor: String) { companyActivities(companyId: $id, limit: ${RELATED_PAGE}, cursor: $cursor) {
      next_cursor nodes { id type subject occurred_at contact { id first_name last_name } } } }`,
    { id: companyId, cursor },
  ).then((d) => d.companyActivities);

export const loadCompanyTimeline = (companyId: string, cursor: string | null) =>
  gql<{ companyTimeline: CursorPage<CompanyTimelineEntry> }>(
    `query ($id: ID!, $cursor: String) { companyTimeline(companyId: $id, limit: 50, cursor: $cursor) {
      next_cursor nodes { id type summary occurred_at actor { type id name } } } }`,
    { id: companyId, cursor },
  ).then((d) => d.companyTimeline);

/** Other companies found by search, to pick one to merge into `exceptId`. */
export const findOtherCompanies = (q: string, exceptId: string) =>
  gql<{ searchCompanies: { nodes: CompanyRow[] } }>(
    'query ($q: String!) { searchCompanies(q: $q, limit: 10) { nodes { id name domain industry size created_at } } }',
    { q },
  ).then((d) => d.searchCompanies.nodes.filter((c) => c.id !== exceptId));

export type MergeStrategy = 'prefer_primary' | 'prefer_secondary';

/**
 * Merges `secondaryId` into `primary` (its contacts and deals move over, then it is deleted), only
 * over the primary's version shown: a change saved meanwhile is refused, as for an edit.
 */
export async function mergeInto(primary: Company, secondaryId: string, strategy: MergeStrategy): Promise<Company> {
  try {
    const d = await gql<{ mergeCompanies: Company }>(
      `mutation ($version: Int, $input: CompanyMergeInput!) {
        mergeCompanies(expected_version: $version, input: $input) { ${COMPANY_FIELDS} } }`,
      {
        version: primary.version,
        input: { primary_id: primary.id, secondary_id: secondaryId, merge_strategy: strategy },
      },
    );
    return d.mergeCompanies;
  } catch (err) {
    if (err instanceof ApiError && err.status === 412) throw new ApiError(CONFLICT_MESSAGE, 412, err.code);
    throw err;
  }
}
