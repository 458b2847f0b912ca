// The Insight page's series: one chart per currency with every stage in order (0 where a stage has
// no deals in it), rates as percentages with gaps for months without closed deals.
import { describe, expect, it } from 'vitest';
import {
  amountIn,
  anyClosed,
  currenciesOf,
  endpointLabel,
  percent,
  valuesIn,
} from '../src/dashboard/pages/insight-model.ts';

const stages = [
  {
    stage_id: 'lead',
    name: 'Lead',
    position: 1,
    amounts: [
      { currency: 'USD', value: 1500, deal_count: 2 },
      { currency: 'EUR', value: 40, deal_count: 1 },
    ],
  },
  { stage_id: 'offer', name: 'Offer', position: 2, amounts: [] },
  { stage_id: 'won', name: 'Signed', position: 3, amounts: [{ currency: 'EUR', value: 300, deal_count: 3 }] },
];

describe('stage values', () => {
  it('lists the currencies alphabetically and each stage’s value in one of them', () => {
    expect(currenciesOf(stages)).toEqual(['EUR', 'USD']);
    expect(valuesIn(stages, 'EUR')).toEqual([40, 0, 300]);
    expect(valuesIn(stages, 'USD')).toEqual([1500, 0, 0]);
    expect(amountIn(stages[2], 'EUR')).toEqual([300, 3]);
    expect(amountIn(stages[1], 'USD')).toEqual([0, 0]);
    expect(currenciesOf([stages[1]])).toEqual([]);
  });
});

describe('rates and labels', () => {
  it('turns rates into percentages to one decimal, null staying null', () => {
    expect(percent(2 / 3)).toBe(66.7);
    expect(percent(1)).toBe(100);
    expect(percent(null)).toBeNull();
  });

  it('knows when no month had a closed deal', () => {
    const month = { month: '2026-11', won: 0, lost: 0, win_rate: null, median_cycle_days: null };
    expect(anyClosed([month])).toBe(false);
    expect(anyClosed([month, { ...month, lost: 1, win_rate: 0, median_cycle_days: 3 }])).toBe(true);
  });

  it('names an endpoint by its name, else its URL', () => {
    expect(endpointLabel({ name: 'Orders', url: 'https://x.test/a' })).toBe('Orders');
    expect(endpointLabel({ name: null, url: 'https://x.test/a' })).toBe('https://x.test/a');
  });
});
