// The Insight page's data: the service's aggregates (pipelineValueByStage, dealOutcomesByMonth,
// webhookDeliveryStats), and how each becomes the series of a chart and the rows of its table.
import { gql } from '../api/graphql.ts';

export interface CurrencyAmount {
  currency: string;
  value: number;
  deal_count: number;
}

export interface StageValue {
  stage_id: string;
  name: string;
  position: number;
  amounts: CurrencyAmount[];
}

export interface DealMonth {
  month: string;
  won: number;
  lost: number;
  win_rate: number | null;
  median_cycle_days: number | null;
}

export interface DeliveryStats {
  webhook_id: string;
  name: string | null;
  url: string;
  deliveries: number;
  delivered: number;
  failed: number;
  pending: number;
  success_rate: number | null;
  p50_ms: number | null;
  p95_ms: number | null;
}

export const loadStageValues = (pipelineId: string) =>
  gql<{ pipelineValueByStage: StageValue[] }>(
    `query ($id: ID!) { pipelineValueByStage(pipelineId: $id) {
      stage_id name position amounts { currency value deal_count } } }`,
    { id: pipelineId },
  ).then((d) => d.pipelineValueByStage);

export const loadDealMonths = (months: number, pipelineId: string | null) =>
  gql<{ dealOutcomesByMonth: DealMonth[] }>(
    `query ($months: Int, $pipelineId: ID) { dealOutcomesByMonth(months: $months, pipelineId: $pipelineId) {
      month won lost win_rate median_cycle_days } }`,
    { months, pipelineId },
  ).then((d) => d.dealOutcomesByMonth);

export const loadDeliveryStats = (days: number) =>
  gql<{ webhookDeliveryStats: DeliveryStats[] }>(
    `query ($days: Int) { webhookDeliveryStats(days: $days) {
      webhook_id name url deliveries delivered failed pending success_rate p50_ms p95_ms } }`,
    { days },
  ).then((d) => d.webhookDeliveryStats);

/** The currencies of the open deals, alphabetical: one chart each, as amounts in different currencies never add up. */
export function currenciesOf(stages: StageValue[]): string[] {
  return [...new Set(stages.flatMap((s) => s.amounts.map((a) => a.currency)))].sort();
}

/** Each stage's open value in one currency, in stage order; 0 for a stage without deals in it. */
export function valuesIn(stages: StageValue[], currency: string): number[] {
  return stages.map((s) => s.amounts.find((a) => a.currency === currency)?.value ?? 0);
}

/** The open deals of a stage in one currency: [value, count], zeros when it has none. */
export function amountIn(stage: StageValue, currency: string): [number, number] {
  const a = stage.amounts.find((x) => x.currency === currency);
  return [a?.value ?? 0, a?.deal_count ?? 0];
}

/** A 0..1 rate as a whole percentage for charts; null (nothing to rate) stays a gap. */
export const percent = (rate: number | null): number | null => (rate === null ? null : Math.round(rate * 1000) / 10);

/** "2026-11" as the browser's short month and year, e.g. "Nov 2026". */
export function monthLabel(month: string): string {
  const [y, m] = month.split('-').map(Number);
  return new Intl.DateTimeFormat(undefined, { month: 'short', year: 'numeric', timeZone: 'UTC' }).format(
    new Date(Date.UTC(y, m - 1, 1)),
  );
}

/** A subscription's label: its name, else its URL. */
export const endpointLabel = (s: Pick<DeliveryStats, 'name' | 'url'>) => s.name || s.url;

/** Whether any month had a closed deal; all-empty months are the empty state. */
export const anyClosed = (months: DealMonth[]) => months.some((m) => m.won + m.lost > 0);
