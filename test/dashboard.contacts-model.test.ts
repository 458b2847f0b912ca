// The Contacts list's rules: the view kept in the query string, the filter it sends, saved views
// and the operations of bulk actions. Pure functions of the page, tested without a browser.
import { describe, expect, it } from 'vitest';
import {
  bulkFailures,
  bulkOperations,
  chunks,
  confirmQuestion,
  endOfDay,
  isFiltered,
  parseSavedViews,
  queryOf,
  sortOf,
  startOfDay,
  viewOf,
  viewWhere,
  withSavedView,
} from '../src/dashboard/pages/contacts-model.ts';

describe('the view in the query string', () => {
  it('reads every filter and the sort, and writes them back in one order without the defaults', () => {
    const search = '?sort=name&tag=vip&status=lead&owner=usr_1&created_from=2026-01-01&created_to=2026-01-31&q=ada';
    const view = viewOf(search);
    expect(view).toMatchObject({ q: 'ada', status: 'lead', tag: 'vip', owner: 'usr_1', sort: 'name' });
    expect(queryOf(view)).toBe(
      '?q=ada&status=lead&tag=vip&owner=usr_1&created_from=2026-01-01&created_to=2026-01-31&sort=name',
    );
    expect(queryOf(viewOf(queryOf(view)))).toBe(queryOf(view));
    expect(queryOf(viewOf(''))).toBe('');
    expect(queryOf({ ...viewOf(''), sort: '-created_at' })).toBe('');
  });

  it('drops an unknown sort, a malformed date and a custom field value without its field', () => {
    const view = viewOf('?sort=shoe_size&created_from=yesterday&cfv=pro');
    expect(view).toMatchObject({ sort: '-created_at', created_from: '', cfv: '' });
    expect(isFiltered(view)).toBe(false);
    expect(isFiltered(viewOf('?updated_to=2026-02-01'))).toBe(true);
    expect(isFiltered(viewOf('?sort=name'))).toBe(false);
  });

  it('maps each sort to the API’s ContactSort values', () => {
    expect(sortOf(viewOf(''))).toEqual(['created_at_desc']);
    expect(sortOf(viewOf('?sort=-name'))).toEqual(['last_name_desc', 'first_name_desc']);
    expect(sortOf(viewOf('?sort=updated_at'))).toEqual(['updated_at_asc']);
  });
});

describe('the filter a view sends', () => {
  it('states each filter in the filter language, date ranges including their last day', () => {
    const view = viewOf(
      '?q=ada lovelace&status=customer&source=referral&tag=vip&owner=none' +
        '&updated_from=2026-03-01&updated_to=2026-03-31',
    );
    expect(viewWhere(view)).toEqual({
      and: ['ada', 'lovelace'].map((w) => ({
        or: [
          { first_name: { contains: w } },
          { last_name: { contains: w } },
          { email: { contains: w } },
          { company: { contains: w } },
        ],
      })),
      status: { eq: 'customer' },
      source: { eq: 'referral' },
      tags: { contains: 'vip' },
      assigned_to: { is_null: true },
      updated_at: { gte: startOfDay('2026-03-01'), lt: endOfDay('2026-03-31') },
    });
    expect(new Date(endOfDay('2026-03-31')).getTime() - new Date(startOfDay('2026-03-31')).getTime()).toBe(
      24 * 3600 * 1000,
    );
    expect(viewWhere(viewOf('?owner=usr_1&created_to=2026-01-01'))).toEqual({
      assigned_to: { eq: 'usr_1' },
      created_at: { lt: endOfDay('2026-01-01') },
    });
    expect(viewWhere(viewOf(''))).toEqual({});
  });

  it('compares a custom field by its type', () => {
    const where = (q: string, type: 'text' | 'number' | 'boolean' | 'select') =>
      viewWhere(viewOf(q), { f: type }).custom_fields;
    expect(where('?cf=f&cfv=acme', 'text')).toEqual({ f: { contains: 'acme' } });
    expect(where('?cf=f&cfv=10', 'number')).toEqual({ f: { eq: 10 } });
    expect(where('?cf=f&cfv=false', 'boolean')).toEqual({ f: { eq: false } });
    expect(where('?cf=f&cfv=pro', 'select')).toEqual({ f: { eq: 'pro' } });
    expect(where('?cf=f', 'text')).toBeUndefined();
  });
});

describe('saved views', () => {
  it('keeps well-formed entries, replaces a view of the same name and sorts by name', () => {
    expect(parseSavedViews('not json')).toEqual([]);
    expect(parseSavedViews('{"a":1}')).toEqual([]);
    const list = parseSavedViews(
      JSON.stringify([{ name: 'VIP', query: '?tag=vip' }, { name: 1 }, { name: ' ', query: '' }]),
    );
    expect(list).toEqual([{ name: 'VIP', query: '?tag=vip' }]);
    const next = withSavedView(withSavedView(list, { name: ' Leads ', query: '?status=lead' }), {
      name: 'VIP',
      query: '?tag=vip&sort=name',
    });
    expect(next).toEqual([
      { name: 'Leads', query: '?status=lead' },
      { name: 'VIP', query: '?tag=vip&sort=name' },
    ]);
  });
});

describe('bulk actions', () => {
  const t = (id: string, tags: string[]) => ({
    id,
    first_name: id.toUpperCase(),
    last_name: 'Doe',
    email: `${id}@x.test`,
    tags,
  });
  const targets = [t('a', ['vip']), t('b', []), t('c', ['vip', 'old'])];

  it('adds or removes a tag where it changes something, assigns and deletes every contact', () => {
    const add = bulkOperations(targets, { kind: 'add_tag', tag: 'vip' });
    expect(add.operations).toEqual([{ op: 'update', id: 'b', data: { tags: ['vip'] } }]);
    expect(add.unchanged.map((x) => x.id)).toEqual(['a', 'c']);
    const remove = bulkOperations(targets, { kind: 'remove_tag', tag: 'vip' });
    expect(remove.operations).toEqual([
      { op: 'update', id: 'a', data: { tags: [] } },
      { op: 'update', id: 'c', data: { tags: ['old'] } },
    ]);
    expect(bulkOperations(targets, { kind: 'assign', userId: 'u', userName: 'U' }).operations[1]).toEqual({
      op: 'update',
      id: 'b',
      data: { assigned_to: 'u' },
    });
    expect(bulkOperations(targets, { kind: 'delete' }).operations.map((o) => o.op)).toEqual([
      'delete',
      'delete',
      'delete',
    ]);
  });

  it('names each failed operation by its contact, and asks with the count', () => {
    const { operations } = bulkOperations(targets, { kind: 'delete' });
    const failures = bulkFailures(
      operations,
      [
        { index: 0, id: 'a', status: 200, error: null },
        { index: 1, id: null, status: 404, error: { message: 'Contact not found' } },
        { index: 2, id: 'c', status: 200, error: null },
      ],
      targets,
    );
    expect(failures).toEqual([{ id: 'b', label: 'B Doe (b@x.test)', message: 'Contact not found' }]);
    expect(confirmQuestion({ kind: 'delete' }, 37)).toBe('Delete 37 contacts?');
    expect(confirmQuestion({ kind: 'add_tag', tag: 'vip' }, 1)).toBe('Add the tag “vip” to 1 contact?');
    expect(chunks([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
  });
});
