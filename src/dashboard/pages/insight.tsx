// Insight: charts of the open pipeline value per stage, the win rate and sales cycle per month, and
// each webhook's delivery success and response times. Every chart has its numbers in a table below
// it; the figures are summed by the service, so the page loads a few rows, not every deal.
import type { ChartConfiguration } from 'chart.js';
import type { ComponentChildren } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import { gql } from '../api/graphql.ts';
import { Chart, SERIES_COLOURS } from '../components/chart.tsx';
import { ErrorMessage } from '../components/error-message.tsx';
import { formatMoney } from '../lib/format.ts';
import { type Query, useQuery } from '../lib/use-query.ts';
import { useTitle } from '../lib/use-title.ts';
import {
  amountIn,
  anyClosed,
  currenciesOf,
  type DealMonth,
  type DeliveryStats,
  endpointLabel,
  loadDealMonths,
  loadDeliveryStats,
  loadStageValues,
  monthLabel,
  percent,
  type StageValue,
  valuesIn,
} from './insight-model.ts';
import { InlineSelect } from '../components/inline-select.tsx';

interface Pipeline {
  id: string;
  name: string;
  is_default: boolean;
}

const MONTH_CHOICES = [6, 12, 24];
const DAY_CHOICES = [1, 7, 30];
const numbers = (list: number[]) => list.map((n) => ({ value: n, label: String(n) }));

const pct = (rate: number | null) => (rate === null ? '—' : `${percent(rate)}%`);
const days = (d: number | null) => (d === null ? '—' : d.toFixed(1));
const ms = (v: number | null) => (v === null ? '—' : `${v} ms`);

/** Loading, error, empty or the content: the states every chart section goes through. */
function States<T>({
  query,
  isEmpty,
  empty,
  children,
}: {
  query: Query<T>;
  isEmpty: (data: T) => boolean;
  empty: string;
  children: (data: T) => ComponentChildren;
}) {
  if (query.error) return <ErrorMessage error={query.error} />;
  if (query.data === undefined) return <p role="status">Loading…</p>;
  return (
    <>
      {query.loading && (
        <p role="status" class="hint">
          Updating…
        </p>
      )}
      {isEmpty(query.data) ? <p class="empty">{empty}</p> : children(query.data)}
    </>
  );
}

/** The chart's numbers as a table, folded away under the chart. */
function NumbersTable({ caption, children }: { caption: string; children: ComponentChildren }) {
  return (
    <details class="numbers">
      <summary>Table of {caption.toLowerCase()}</summary>
      <div class="table-scroll">
        <table>
          <caption class="visually-hidden">{caption}</caption>
          {children}
        </table>
      </div>
    </details>
  );
}

function stageChart(stages: StageValue[], currency: string, colour: string): ChartConfiguration<'bar'> {
  return {
    type: 'bar',
    data: {
      labels: stages.map((s) => s.name),
      datasets: [{ label: `Open value (${currency})`, data: valuesIn(stages, currency), backgroundColor: colour }],
    },
    options: {
      plugins: { legend: { display: false } },
      scales: { y: { beginAtZero: true, ticks: { callback: (v) => formatMoney(Number(v), currency) } } },
    },
  };
}

function PipelineValue({ pipeline }: { pipeline: Pipeline }) {
  const query = useQuery(() => loadStageValues(pipeline.id), [pipeline.id]);
  const currencies = useMemo(() => currenciesOf(query.data ?? []), [query.data]);
  const charts = useMemo(
    () => currencies.map((c, i) => stageChart(query.data ?? [], c, SERIES_COLOURS[i % SERIES_COLOURS.length])),
    [currencies],
  );
  return (
    <section class="insight" aria-labelledby="pipeline-value" data-chart="pipeline-value">
      <h2 id="pipeline-value">Pipeline value by stage</h2>
      <p class="hint">Open deals of {pipeline.name}, per currency.</p>
      <States query={query} isEmpty={() => currencies.length === 0} empty="This pipeline has no open deals.">
        {(stages) => (
          <>
            {currencies.map((c, i) => (
              <figure key={c}>
                {currencies.length > 1 && <figcaption>{c}</figcaption>}
                <Chart
                  config={charts[i]}
                  label={`Open deal value per stage in ${c}; the numbers are in the table below`}
                />
              </figure>
            ))}
            <NumbersTable caption="Open deal value by stage">
              <thead>
                <tr>
                  <th scope="col">Stage</th>
                  {currencies.map((c) => (
                    <th key={c} scope="col">
                      {c}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {stages.map((s) => (
                  <tr key={s.stage_id} data-stage={s.name}>
                    <th scope="row">{s.name}</th>
                    {currencies.map((c) => {
                      const [value, count] = amountIn(s, c);
                      return (
                        <td key={c}>
                          {formatMoney(value, c)} ({count} {count === 1 ? 'deal' : 'deals'})
                        </td>
                      );
                    })}
                  </tr>
                ))}
              </tbody>
            </NumbersTable>
          </>
        )}
      </States>
    </section>
  );
}

function monthCharts(months: DealMonth[]): [ChartConfiguration<'line'>, ChartConfiguration<'bar'>] {
  const labels = months.map((m) => monthLabel(m.month));
  return [
    {
      type: 'line',
      data: {
        labels,
        datasets: [
          {
            label: 'Win rate (%)',
            data: months.map((m) => percent(m.win_rate)),
            borderColor: SERIES_COLOURS[2],
            backgroundColor: SERIES_COLOURS[2],
            spanGaps: true,
          },
        ],
      },
      options: { plugins: { legend: { display: false } }, scales: { y: { min: 0, max: 100 } } },
    },
    {
      type: 'bar',
      data: {
        labels,
        datasets: [
          {
            label: 'Median days to close',
            data: months.map((m) => m.median_cycle_days),
            backgroundColor: SERIES_COLOURS[0],
          },
        ],
      },
      options: { plugins: { legend: { display: false } }, scales: { y: { beginAtZero: true } } },
    },
  ];
}

function WinRate({ pipeline }: { pipeline: Pipeline }) {
  const [months, setMonths] = useState(12);
  const query = useQuery(() => loadDealMonths(months, pipeline.id), [months, pipeline.id]);
  const charts = useMemo(() => monthCharts(query.data ?? []), [query.data]);
  return (
    <section class="insight" aria-labelledby="win-rate" data-chart="win-rate">
      <div class="title-row">
        <h2 id="win-rate">Win rate and sales cycle</h2>
        <InlineSelect label="Months" value={months} choices={numbers(MONTH_CHOICES)} onChange={setMonths} />
      </div>
      <p class="hint">
        Deals of {pipeline.name} by the month they closed: won / (won + lost), and the median days from creation to
        close.
      </p>
      <States query={query} isEmpty={(d) => !anyClosed(d)} empty={`No deal closed in the last ${months} months.`}>
        {(data) => (
          <>
            <div class="chart-pair">
              <figure>
                <figcaption>Win rate (%)</figcaption>
                <Chart config={charts[0]} label="Win rate per month; the numbers are in the table below" />
              </figure>
              <figure>
                <figcaption>Median days to close</figcaption>
                <Chart config={charts[1]} label="Median days to close per month; the numbers are in the table below" />
              </figure>
            </div>
            <NumbersTable caption="Win rate and sales cycle by month">
              <thead>
                <tr>
                  <th scope="col">Month</th>
                  <th scope="col">Won</th>
                  <th scope="col">Lost</th>
                  <th scope="col">Win rate</th>
                  <th scope="col">Median days</th>
                </tr>
              </thead>
              <tbody>
                {data.map((m) => (
                  <tr key={m.month} data-month={m.month}>
                    <th scope="row">{monthLabel(m.month)}</th>
                    <td>{m.won}</td>
                    <td>{m.lost}</td>
                    <td>{pct(m.win_rate)}</td>
                    <td>{days(m.median_cycle_days)}</td>
                  </tr>
                ))}
              </tbody>
            </NumbersTable>
          </>
        )}
      </States>
    </section>
  );
}

function deliveryCharts(stats: DeliveryStats[]): [ChartConfiguration<'bar'>, ChartConfiguration<'bar'>] {
  const labels = stats.map(endpointLabel);
  // Bars run across, so long endpoint names and URLs get the width of the chart.
  return [
    {
      type: 'bar',
      data: {
        labels,
        datasets: [
          {
            label: 'Delivered (%)',
            data: stats.map((s) => percent(s.success_rate)),
            backgroundColor: SERIES_COLOURS[2],
          },
        ],
      },
      options: { indexAxis: 'y', plugins: { legend: { display: false } }, scales: { x: { min: 0, max: 100 } } },
    },
    {
      type: 'bar',
      data: {
        labels,
        datasets: [
          { label: 'p50 (ms)', data: stats.map((s) => s.p50_ms), backgroundColor: SERIES_COLOURS[0] },
          { label: 'p95 (ms)', data: stats.map((s) => s.p95_ms), backgroundColor: SERIES_COLOURS[1] },
        ],
      },
      options: { indexAxis: 'y', scales: { x: { beginAtZero: true } } },
    },
  ];
}

function WebhookDeliveries() {
  const [period, setPeriod] = useState(7);
  const query = useQuery(() => loadDeliveryStats(period), [period]);
  const charts = useMemo(() => deliveryCharts(query.data ?? []), [query.data]);
  return (
    <section class="insight" aria-labelledby="webhook-deliveries" data-chart="webhook-deliveries">
      <div class="title-row">
        <h2 id="webhook-deliveries">Webhook deliveries</h2>
        <InlineSelect label="Days" value={period} choices={numbers(DAY_CHOICES)} onChange={setPeriod} />
      </div>
      <p class="hint">
        Per subscription, the deliveries of the last {period} {period === 1 ? 'day' : 'days'}: the share delivered of
        those finished, and the median and 95th percentile response times.
      </p>
      <States
        query={query}
        isEmpty={(d) => d.every((s) => s.deliveries === 0)}
        empty={`No webhook delivery in the last ${period} ${period === 1 ? 'day' : 'days'}.`}
      >
        {(data) => (
          <>
            <div class="chart-pair">
              <figure>
                <figcaption>Delivered (%)</figcaption>
                <Chart config={charts[0]} label="Share delivered per endpoint; the numbers are in the table below" />
              </figure>
              <figure>
                <figcaption>Response time (ms)</figcaption>
                <Chart
                  config={charts[1]}
                  label="Median and 95th percentile response time per endpoint; the numbers are in the table below"
                />
              </figure>
            </div>
            <NumbersTable caption="Webhook deliveries by endpoint">
              <thead>
                <tr>
                  <th scope="col">Endpoint</th>
                  <th scope="col">Deliveries</th>
                  <th scope="col">Delivered</th>
                  <th scope="col">Failed</th>
                  <th scope="col">Pending</th>
                  <th scope="col">Success rate</th>
                  <th scope="col">p50</th>
                  <th scope="col">p95</th>
                </tr>
              </thead>
              <tbody>
                {data.map((s) => (
                  <tr key={s.webhook_id} data-webhook={s.webhook_id}>
                    <th scope="row" class="url">
                      <a href={`/dashboard/webhooks/${s.webhook_id}`}>{endpointLabel(s)}</a>
                    </th>
                    <td>{s.deliveries}</td>
                    <td>{s.delivered}</td>
                    <td>{s.failed}</td>
                    <td>{s.pending}</td>
                    <td>{pct(s.success_rate)}</td>
                    <td>{ms(s.p50_ms)}</td>
                    <td>{ms(s.p95_ms)}</td>
                  </tr>
                ))}
              </tbody>
            </NumbersTable>
          </>
        )}
      </States>
    </section>
  );
}

export function InsightPage() {
  useTitle('Insight');
  const pipelines = useQuery(
    () =>
      gql<{ pipelines: { nodes: Pipeline[] } }>('{ pipelines(limit: 100) { nodes { id name is_default } } }').then(
        (d) => d.pipelines.nodes,
      ),
    [],
  );
  const [chosen, setChosen] = useState<string | null>(null);
  const list = pipelines.data ?? [];
  const current = list.find((p) => p.id === chosen) ?? list.find((p) => p.is_default) ?? list[0];

  return (
    <>
      <div class="title-row">
        <h1>Insight</h1>
        {list.length > 1 && (
          <InlineSelect
            label="Pipeline"
            value={current?.id}
            choices={list.map((p) => ({ value: p.id, label: p.name }))}
            onChange={setChosen}
          />
        )}
      </div>
      <ErrorMessage error={pipelines.error} />
      {pipelines.loading && !pipelines.data && <p role="status">Loading…</p>}
      {pipelines.data && !current && <p>This workspace has no pipeline yet.</p>}
      <div class="insight-grid">
        {current && <PipelineValue key={current.id} pipeline={current} />}
        {current && <WinRate key={current.id} pipeline={current} />}
        <WebhookDeliveries />
      </div>
    </>
  );
}
