// The Insight page's figures, aggregated in the database so the dashboard never pages through
// every deal or delivery: open pipeline value per stage and currency, won/lost and cycle time
// per closing month, and each webhook subscription's delivery success and response times.
import { assertAllowed } from '../../auth/scopes.ts';
import { Prisma } from '../../db/generated/client/client.ts';
import { validationError } from '../../errors.ts';
import { builder } from '../builder.ts';
import type { Context } from '../context.ts';
import { findPipeline } from '../pipeline/pipeline.queries.ts';
import { countProblem, fillMonths, type MonthOutcome, monthsEndingAt, rate, windowStart } from './insight.rules.ts';
import { MAX_MONTHS } from './insight.limits.ts';

const sql = Prisma.sql;
const MAX_DAYS = 90;

interface CurrencyAmount {
  currency: string;
  value: number;
  deal_count: number;
}

interface StageValue {
  stage_id: string;
  name: string;
  position: number;
  amounts: CurrencyAmount[];
}

interface DeliveryStats {
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

const CurrencyAmountType = builder.objectRef<CurrencyAmount>('CurrencyAmount').implement({
  description: 'The open deals of one stage in one currency: values in different currencies are never added.',
  fields: (t) => ({
    currency: t.exposeString('currency', { description: 'ISO 4217 code' }),
    value: t.exposeFloat('value', { description: 'Summed deal values; a deal without a value counts as 0' }),
    deal_count: t.exposeInt('deal_count'),
  }),
});

const StageValueType = builder.objectRef<StageValue>('StageValue').implement({
  description: 'A stage of a pipeline with the value of its open deals, per currency.',
  fields: (t) => ({
    stage_id: t.exposeID('stage_id'),
    name: t.exposeString('name'),
    position: t.exposeInt('position', { description: '1 for the first stage' }),
    amounts: t.field({
      type: [CurrencyAmountType],
      description: 'One entry per currency of its open deals, by currency code; empty when it has none',
      resolve: (s) => s.amounts,
    }),
  }),
});

const DealMonthType = builder.objectRef<MonthOutcome>('DealMonth').implement({
  description: 'The deals closed in one calendar month (UTC).',
  fields: (t) => ({
    month: t.exposeString('month', { description: 'YYYY-MM' }),
    won: t.exposeInt('won'),
    lost: t.exposeInt('lost'),
    win_rate: t.exposeFloat('win_rate', {
      nullable: true,
      description: 'won / (won + lost), 0 to 1; null when none closed that month',
    }),
    median_cycle_days: t.exposeFloat('median_cycle_days', {
      nullable: true,
      description: 'Median days from creation to close of the deals closed that month; null when none closed',
    }),
  }),
});

const DeliveryStatsType = builder.objectRef<DeliveryStats>('WebhookDeliveryStats').implement({
  description: 'The delivery log of one subscription over the last days, summed up.',
  fields: (t) => ({
    webhook_id: t.exposeID('webhook_id'),
    name: t.exposeString('name', { nullable: true, description: 'The subscription’s name; null when it has none' }),
    url: t.exposeString('url'),
    deliveries: t.exposeInt('deliveries', { description: 'Log entries created in the period, test sends included' }),
    delivered: t.exposeInt('delivered'),
    failed: t.exposeInt('failed'),
    pending: t.exposeInt('pending'),
    success_rate: t.exposeFloat('success_rate', {
      nullable: true,
      description: 'delivered / (delivered + failed), 0 to 1; null when none has finished',
    }),
    p50_ms: t.exposeFloat('p50_ms', {
      nullable: true,
      description: 'Median response time of the last attempts, in whole milliseconds; null without any',
    }),
    p95_ms: t.exposeFloat('p95_ms', {
      nullable: true,
      description: '95th percentile of the same times; null without any',
    }),
  }),
});

function checkCount(name: string, value: number, max: number): void {
  const problem = countProblem(value, 1, max);
  if (problem) throw validationError({ [name]: [problem] });
}

async function stageValues(ctx: Context, pipelineId: string): Promise<StageValue[]> {
  const pipeline = await findPipeline(ctx.prisma, ctx, pipelineId);
  const [stages, groups] = await Promise.all([
    ctx.prisma.stage.findMany({ where: { pipelineId: pipeline.id }, orderBy: { position: 'asc' } }),
    ctx.prisma.deal.groupBy({
      by: ['stageId', 'currency'],
      where: { workspaceId: ctx.caller.workspaceId, pipelineId: pipeline.id, status: 'open' },
      _sum: { value: true },
      _count: { _all: true },
      orderBy: [{ stageId: 'asc' }, { currency: 'asc' }],
    }),
  ]);
  return stages.map((s) => ({
    stage_id: s.id,
    name: s.name,
    position: s.position,
    amounts: groups
      .filter((g) => g.stageId === s.id)
      .map((g) => ({ currency: g.currency, value: Number(g._sum.value ?? 0), deal_count: g._count._all })),
  }));
}

async function dealMonths(ctx: Context, months: number, pipelineId: string | null): Promise<MonthOutcome[]> {
  const now = new Date();
  const pipeline = pipelineId ? await findPipeline(ctx.prisma, ctx, pipelineId) : null;
  const rows = await ctx.prisma.$queryRaw<{ month: string; won: number; lost: number; median_days: number | null }[]>`
    SELECT to_char(closed_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month,
      count(*) FILTER (WHERE status = 'won')::int AS won,
      count(*) FILTER (WHERE status = 'lost')::int AS lost,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM closed_at - created_at) / 86400)::float8
        AS median_days
    FROM deals
    WHERE workspace_id = ${ctx.caller.workspaceId} AND status IN ('won', 'lost')
      AND closed_at >= ${windowStart(now, months)}
      ${pipeline ? sql`AND pipeline_id = ${pipeline.id}` : Prisma.empty}
    GROUP BY 1`;
  return fillMonths(monthsEndingAt(now, months), rows);
}

async function deliveryStats(ctx: Context, days: number): Promise<DeliveryStats[]> {
  const since = new Date(Date.now() - days * 86_400_000);
  const rows = await ctx.prisma.$queryRaw<Omit<DeliveryStats, 'success_rate'>[]>`
    SELECT s.id AS webhook_id, s.name, s.url,
      count(d.id)::int AS deliveries,
      count(*) FILTER (WHERE d.status = 'delivered')::int AS delivered,
      count(*) FILTER (WHERE d.status = 'failed')::int AS failed,
      count(*) FILTER (WHERE d.status = 'pending')::int AS pending,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY d.response_time_ms)::float8 AS p50_ms,
      percentile_cont(0.95) WITHIN GROUP (ORDER BY d.response_time_ms)::float8 AS p95_ms
    FROM webhook_subscriptions s
    LEFT JOIN webhook_deliveries d ON d.subscription_id = s.id AND d.created_at >= ${since}
    WHERE s.workspace_id = ${ctx.caller.workspaceId}
    GROUP BY s.id
    ORDER BY s.created_at, s.id`;
  const ms = (v: number | null) => (v === null ? null : Math.round(v));
  return rows.map((r) => ({
    ...r,
    success_rate: rate(r.delivered, r.delivered + r.failed),
    p50_ms: ms(r.p50_ms),
    p95_ms: ms(r.p95_ms),
  }));
}

builder.queryFields((t) => ({
  pipelineValueByStage: t.field({
    type: [StageValueType],
    description: 'The open deals of a pipeline summed per stage and currency, stages in order.',
    args: { pipelineId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'deals', 'read');
      assertAllowed(ctx.caller, 'pipelines', 'read');
      return stageValues(ctx, String(args.pipelineId));
    },
  }),
  dealOutcomesByMonth: t.field({
    type: [DealMonthType],
    description:
      'Won and lost deals per calendar month (UTC) of closing, with the win rate and median sales cycle, ' +
      'oldest month first, the current month last.',
    args: {
      months: t.arg.int({ description: `How many months, 1 to ${MAX_MONTHS} (default 12)` }),
      pipelineId: t.arg.id({ description: 'Only the deals of this pipeline; all pipelines when absent' }),
    },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'deals', 'read');
      const months = args.months ?? 12;
      checkCount('months', months, MAX_MONTHS);
      if (args.pipelineId) assertAllowed(ctx.caller, 'pipelines', 'read');
      return dealMonths(ctx, months, args.pipelineId ? String(args.pipelineId) : null);
    },
  }),
  webhookDeliveryStats: t.field({
    type: [DeliveryStatsType],
    description:
      'Per webhook subscription, oldest first: its deliveries of the last days by status, the share delivered ' +
      'and the median and 95th percentile response times.',
    args: { days: t.arg.int({ description: `How many days back, 1 to ${MAX_DAYS} (default 7)` }) },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'webhooks', 'read');
      const days = args.days ?? 7;
      checkCount('days', days, MAX_DAYS);
      return deliveryStats(ctx, days);
    },
  }),
}));
