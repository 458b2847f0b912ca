// What a change made elsewhere means for the company page: tested without a browser.
import { describe, expect, it } from 'vitest';
import { type CompanyChange, effectOf } from '../src/dashboard/pages/company-live.ts';

const change = (event: string, companyId: string, data: CompanyChange['data'] = {}): CompanyChange => ({
  event,
  company_id: companyId,
  data,
});
const company = (id: string, version: number, name = 'Acme') => ({ id, name, version });

describe('a change to the company shown', () => {
  it('is applied when it is newer than the version shown, and not when the page shows it already', () => {
    expect(effectOf('cmp_1', 2, change('company.updated', 'cmp_1', { company: company('cmp_1', 3) }))).toEqual({
      kind: 'company',
    });
    // The page's own save: its answer is shown before the event comes by.
    expect(effectOf('cmp_1', 3, change('company.updated', 'cmp_1', { company: company('cmp_1', 3) }))).toBeNull();
    expect(effectOf('cmp_1', 3, change('company.merged', 'cmp_1', { company: company('cmp_1', 4) }))).toEqual({
      kind: 'company',
    });
  });

  it('says the company is gone when it is deleted or merged into another, naming the survivor', () => {
    expect(effectOf('cmp_1', 2, change('company.deleted', 'cmp_1', { company: company('cmp_1', 2) }))).toEqual({
      kind: 'deleted',
    });
    const merged = change('company.merged', 'cmp_2', {
      company: company('cmp_2', 5, 'Survivor'),
      merged_company: { id: 'cmp_1' },
    });
    expect(effectOf('cmp_1', 2, merged)).toEqual({ kind: 'merged', into: { id: 'cmp_2', name: 'Survivor' } });
  });

  it('refreshes the lists when its contacts or deals change', () => {
    expect(effectOf('cmp_1', 2, change('contact.created', 'cmp_1'))).toEqual({ kind: 'related' });
    expect(effectOf('cmp_1', 2, change('deal.stage_changed', 'cmp_1'))).toEqual({ kind: 'related' });
    // A contact that left for another company is reported to the one it left.
    expect(effectOf('cmp_1', 2, change('contact.updated', 'cmp_9', null))).toEqual({ kind: 'related' });
  });
});
