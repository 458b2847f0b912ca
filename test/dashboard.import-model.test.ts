// The import page's rules: the header row read in the browser, the first guess of each column's
// field, the mapping sent, and how progress reads.
import { describe, expect, it } from 'vitest';
import {
  CONTENT_TYPES,
  formatEta,
  formatOf,
  fractionDone,
  guessField,
  headerOf,
  jsonKeysOf,
  mappingOf,
} from '../src/dashboard/pages/import-model.ts';

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

describe('formatOf', () => {
  it('reads .jsonl and .ndjson names as JSON Lines, whatever type the browser guessed', () => {
    expect(formatOf({ name: 'people.jsonl', type: '' })).toBe('jsonl');
    expect(formatOf({ name: 'PEOPLE.NDJSON', type: 'application/octet-stream' })).toBe('jsonl');
    expect(formatOf({ name: 'export', type: 'application/x-ndjson' })).toBe('jsonl');
  });
  it('reads anything else as CSV', () => {
    expect(formatOf({ name: 'people.csv', type: 'text/csv' })).toBe('csv');
    expect(formatOf({ name: 'people.txt', type: 'text/plain' })).toBe('csv');
    expect(formatOf({ name: 'people.json', type: 'application/json' })).toBe('csv');
  });
  it('sends each format with its content type', () => {
    expect(CONTENT_TYPES).toEqual({ csv: 'text/csv', jsonl: 'application/x-ndjson' });
  });
});

describe('jsonKeysOf', () => {
  it('collects the keys of the first objects in the order first seen, past a BOM and blank lines', () => {
    const text = '\uFEFF{"email":"a@x.io","given":"A"}\n\n{"given":"B","tier":"gold"}\r\n';
    expect(jsonKeysOf(text, true)).toEqual({ keys: ['email', 'given', 'tier'], bad: 0 });
  });
  it('counts lines that are not JSON objects', () => {
    expect(jsonKeysOf('{"a":1}\nnot json\n[1]\nnull\n"text"\n', true)).toEqual({ keys: ['a'], bad: 4 });
  });
  it('leaves out the last line of a cut-off start, which may be cut short', () => {
    expect(jsonKeysOf('{"a":1}\n{"b":2', false)).toEqual({ keys: ['a'], bad: 0 });
    expect(jsonKeysOf('{"a":1}\n{"b":2}', true)).toEqual({ keys: ['a', 'b'], bad: 0 });
  });
  it('reads only the first lines', () => {
    const text = Array.from({ length: 10 }, (_, i) => JSON.stringify({ [`k${i}`]: i })).join('\n');
    expect(jsonKeysOf(text, true, 3).keys).toEqual(['k0', 'k1', 'k2']);
  });
});
