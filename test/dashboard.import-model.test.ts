// The import page's rules: the header row read in the browser, the first guess of each column's
// field, the mapping sent, and how progress reads.
import { describe, expect, it } from 'vitest';
import { formatEta, fractionDone, guessField, headerOf, mappingOf } from '../src/dashboard/pages/import-model.ts';

describe('headerOf', () => {
  it('reads the first record: quotes, doubled quotes, commas and line breaks inside quotes, CRLF, a BOM', () => {
    expect(headerOf('\uFEFFName,E-mail\r\nAda,ada@example.com\r\n')).toEqual(['Name', 'E-mail']);
    expect(headerOf('"Last, first","Say ""hi""","Two\nlines",x\nrest')).toEqual([
      'Last, first',
      'Say "hi"',
      'Two\nlines',
      'x',
    ]);
    expect(headerOf('a,,b')).toEqual(['a', '', 'b']);
    // A quote inside an unquoted cell is text, as the server reads it.
    expect(headerOf('Height 5\'11" tall,b\n')).toEqual(['Height 5\'11" tall', 'b']);
  });

  it('skips blank lines before the header; an empty file has no columns', () => {
    expect(headerOf('\r\n\nName\nAda\n')).toEqual(['Name']);
    expect(headerOf('')).toEqual([]);
    expect(headerOf('\n\n')).toEqual([]);
  });
});

describe('guessField', () => {
  const fields = ['first_name', 'last_name', 'email', 'address.city', 'custom_fields.tier'];

  it('matches names that differ in case, spaces and punctuation, and custom fields by their key', () => {
    expect(guessField('First name', fields)).toBe('first_name');
    expect(guessField('E-mail', fields)).toBe('email');
    expect(guessField('Address city', fields)).toBe('address.city');
    expect(guessField('Tier', fields)).toBe('custom_fields.tier');
  });

  it('skips a column named like no field', () => {
    expect(guessField('Notes', fields)).toBe('');
    expect(guessField('', fields)).toBe('');
    expect(guessField('---', fields)).toBe('');
  });
});

describe('mappingOf', () => {
  it('names every column, a skipped one as null', () => {
    expect(mappingOf(['Name', 'Mail', 'Notes'], { Name: 'first_name', Mail: 'email', Notes: '' })).toEqual({
      Name: 'first_name',
      Mail: 'email',
      Notes: null,
    });
  });
});

describe('progress', () => {
  it('formats the time left', () => {
    expect(formatEta(null)).toBe('—');
    expect(formatEta(0)).toBe('0 s');
    expect(formatEta(59)).toBe('59 s');
    expect(formatEta(125)).toBe('2 min 5 s');
    expect(formatEta(3725)).toBe('1 h 2 min');
  });

  it('reads the fraction done by bytes; a completed job is whole', () => {
    expect(fractionDone({ status: 'running', bytes_read: 25, bytes_total: 100 })).toBe(0.25);
    expect(fractionDone({ status: 'queued', bytes_read: 0, bytes_total: 0 })).toBe(0);
    expect(fractionDone({ status: 'completed', bytes_read: 0, bytes_total: 0 })).toBe(1);
  });
});
