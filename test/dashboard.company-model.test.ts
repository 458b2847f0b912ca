// The Companies pages' rules: the list's state in the URL, the new company form's values as the
// API's input, and timeline entries in words. Pure functions of the pages, tested without a browser.
import { describe, expect, it } from 'vitest';
import {
  countLabel,
  createInput,
  EMPTY_COMPANY,
  eventInWords,
  listQuery,
  sizeOf,
  sortOf,
  tagsOf,
  timelineText,
} from '../src/dashboard/pages/company-model.ts';

describe('the companies list in the URL', () => {
  it('reads the sort, newest first when there is none or one the list does not offer', () => {
    expect(sortOf('name_asc')).toBe('name_asc');
    expect(sortOf(null)).toBe('created_at_desc');
    expect(sortOf('size_desc')).toBe('created_at_desc');
  });

  it('writes the search and the sort, leaving the defaults out', () => {
    expect(listQuery('', 'created_at_desc')).toBe('');
    expect(listQuery('acme corp', 'created_at_desc')).toBe('?q=acme+corp');
    expect(listQuery('', 'name_desc')).toBe('?sort=name_desc');
    expect(listQuery('a&b', 'name_asc')).toBe('?q=a%26b&sort=name_asc');
  });

  it('counts companies, and matches of a search', () => {
    expect(countLabel(0, '')).toBe('0 companies');
    expect(countLabel(1, '')).toBe('1 company');
    expect(countLabel(1, 'acme')).toBe('1 company matches “acme”');
    expect(countLabel(3, 'acme')).toBe('3 companies match “acme”');
  });
});

describe('a new company’s input', () => {
  it('leaves blank fields out and trims the rest', () => {
    expect(createInput(EMPTY_COMPANY)).toEqual({ name: '' });
    expect(
      createInput({
        name: ' Acme ',
        domain: 'acme.com ',
        industry: '',
        size: ' 120 ',
        phone: '+14155550123',
        tags: 'b2b, , aerospace ',
      }),
    ).toEqual({ name: 'Acme', domain: 'acme.com', size: 120, phone: '+14155550123', tags: ['b2b', 'aerospace'] });
  });

  it('sends a size as typed, for the API to refuse a fraction or a negative number in its words', () => {
    expect(sizeOf('')).toBeNull();
    expect(sizeOf('-5')).toBe(-5);
    expect(sizeOf('12.5')).toBe(12.5);
    expect(sizeOf('many')).toBe('many');
  });

  it('splits tags at commas, dropping blanks', () => {
    expect(tagsOf('')).toEqual([]);
    expect(tagsOf(' a ,b,, c')).toEqual(['a', 'b', 'c']);
  });
});

describe('the timeline in words', () => {
  it('keeps the API’s sentence', () => {
    expect(timelineText({ type: 'company.updated', summary: 'Updated industry, size' })).toBe('Updated industry, size');
    expect(timelineText({ type: 'deal.created', summary: 'Deal “Engines” created' })).toBe('Deal “Engines” created');
    expect(timelineText({ type: 'activity.logged', summary: 'call logged: Demo' })).toBe('Call logged: Demo');
  });

  it('puts an event code in words where there is no sentence', () => {
    expect(eventInWords('deal.stage_changed')).toBe('Deal stage changed');
    expect(timelineText({ type: 'task.completed', summary: null })).toBe('Task completed');
    expect(timelineText({ type: 'deal.stage_changed', summary: 'deal.stage_changed' })).toBe('Deal stage changed');
  });

  it('drops a dangling colon of a change that names no field', () => {
    expect(timelineText({ type: 'contact.updated', summary: 'Contact Ada updated: ' })).toBe('Contact Ada updated');
    expect(timelineText({ type: 'company.updated', summary: 'Updated ' })).toBe('Updated');
  });
});
