// The board's sums: per currency, deals without a value count as 0, and the forecast weighs open
// deals by their stage's probability.
import { describe, expect, it } from 'vitest';
import { formatSums } from '../src/dashboard/lib/format.ts';
import { sumValues, weightedForecast } from '../src/dashboard/pages/pipeline-model.ts';

const stages = [
  { id: 'lead', name: 'Lead', position: 1, probability: 10 },
  { id: 'proposal', name: 'Proposal', position: 2, probability: 50 },
];

describe('sumValues', () => {
  it('adds values per currency, a missing value as 0', () => {
    const sums = sumValues([
      { value: 100, currency: 'USD' },
      { value: null, currency: 'USD' },
      { value: 40, currency: 'EUR' },
      { value: 60, currency: 'USD' },
    ]);
    expect([...sums]).toEqual([
      ['USD', 160],
      ['EUR', 40],
    ]);
  });
});

describe('weightedForecast', () => {
  it('weighs open deals by their stage probability and leaves closed ones out', () => {
    const sums = weightedForecast(
      [
        { value: 1000, currency: 'USD', status: 'open', stage_id: 'lead' },
        { value: 1000, currency: 'USD', status: 'open', stage_id: 'proposal' },
        { value: 5000, currency: 'USD', status: 'won', stage_id: 'proposal' },
        { value: 200, currency: 'EUR', status: 'open', stage_id: 'proposal' },
        { value: 999, currency: 'USD', status: 'open', stage_id: 'gone' },
      ],
      stages,
    );
    expect([...sums]).toEqual([
      ['USD', 600],
      ['EUR', 100],
    ]);
  });
});

describe('formatSums', () => {
  it('joins amounts in different currencies, and shows 0 when there are none', () => {
    const usd = new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD', maximumFractionDigits: 0 });
    const eur = new Intl.NumberFormat(undefined, { style: 'currency', currency: 'EUR', maximumFractionDigits: 0 });
    expect(formatSums(new Map([['USD', 600]]))).toBe(usd.format(600));
    expect(
      formatSums(
        new Map([
          ['USD', 600],
          ['EUR', 100],
        ]),
      ),
    ).toBe(`${usd.format(600)} · ${eur.format(100)}`);
    expect(formatSums(new Map(), 'EUR')).toBe(eur.format(0));
  });
});
