import { queryFromInfo } from '@pothos/plugin-prisma';
import { assertAllowed } from '../../auth/scopes.ts';
import { notFound } from '../../errors.ts';
import type { Prisma } from '../../db/generated/client/client.ts';
import { builder } from '../builder.ts';
import type { Context } from '../context.ts';
import { findPage, type SortSpec } from '../common/pagination.ts';
import { PipelinePage, PipelineType, StageTotalsPage } from './pipeline.type.ts';
import { sortArg } from '../common/sort.ts';

const PIPELINE_SORT: SortSpec = {
  default: 'created_at',
  fields: {
    created_at: { field: 'createdAt', type: 'date' },
    updated_at: { field: 'updatedAt', type: 'date' },
    name: { field: 'name', type: 'string' },
  },
};

const STAGE_SORT: SortSpec = { default: 'position', fields: { position: { field: 'position', type: 'int' } } };

/** Loads a pipeline of the caller's workspace or answers 404 (also for other workspaces' ids). */
export async function findPipeline(db: Pick<Context['prisma'], 'pipeline'>, ctx: Context, id: string) {
  const pipeline = await db.pipeline.findFirst({ where: { id, workspaceId: ctx.caller.workspaceId } });
  if (!pipeline) throw notFound('Pipeline');
  return pipeline;
}

/** Deal count and summed value per stage, in one grouped query for all the given stages. */
async function totalsByStage(ctx: Context, stageIds: string[]) {
  const groups = await ctx.prisma.deal.groupBy({
    by: ['stageId'],
    where: { workspaceId: ctx.caller.workspaceId, stageId: { in: stageIds } },
    _count: { _all: true },
    _sum: { value: true },
  });
  return new Map(
    groups.map((g) => [g.stageId, { dealCount: g._count._all, totalValue: g._sum.value?.toNumber() ?? 0 }]),
  );
}

builder.queryFields((t) => ({
  pipelines: t.field({
    type: PipelinePage,
    description: 'Pipelines of the workspace with their stages, oldest first.',
    args: { sort: sortArg(t, 'PipelineSort', PIPELINE_SORT), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: (_root, args, ctx, info) => {
      assertAllowed(ctx.caller, 'pipelines', 'read');
      return findPage(args, PIPELINE_SORT, {
        list: 'pipelines',
        where: { workspaceId: ctx.caller.workspaceId },
        fetch: (q) =>
          ctx.prisma.pipeline.findMany({
            ...queryFromInfo({ context: ctx, info, path: ['nodes'] }),
            ...q,
          } as Prisma.PipelineFindManyArgs),
        count: (where) => ctx.prisma.pipeline.count({ where }),
      });
    },
  }),
  pipeline: t.prismaField({
    description: 'One pipeline with its stages; not_found when the workspace has none with that id.',
    type: PipelineType,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      assertAllowed(ctx.caller, 'pipelines', 'read');
      const pipeline = await ctx.prisma.pipeline.findFirst({
        ...query,
        where: { id: String(args.id), workspaceId: ctx.caller.workspaceId },
      });
      if (!pipeline) throw notFound('Pipeline');
      return pipeline;
    },
  }),
  pipelineStages: t.field({
    type: StageTotalsPage,
    description: 'Stages of a pipeline in order, with the number and summed value of the deals in each.',
    args: {
      pipelineId: t.arg.id({ required: true }),
      sort: sortArg(t, 'StageSort', STAGE_SORT),
      limit: t.arg.int(),
      cursor: t.arg.string(),
    },
    resolve: async (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'pipelines', 'read');
      const pipeline = await findPipeline(ctx.prisma, ctx, String(args.pipelineId));
      const page = await findPage(args, STAGE_SORT, {
        list: `pipeline_stages:${pipeline.id}`,
        where: { pipelineId: pipeline.id },
        fetch: (q) => ctx.prisma.stage.findMany(q as Prisma.StageFindManyArgs),
        count: (where) => ctx.prisma.stage.count({ where }),
      });
      const totals = await totalsByStage(
        ctx,
        page.nodes.map((s) => s.id),
      );
      const nodes = page.nodes.map((s) => ({ ...s, dealCount: 0, totalValue: 0, ...totals.get(s.id) }));
      return { ...page, nodes };
    },
  }),
}));
