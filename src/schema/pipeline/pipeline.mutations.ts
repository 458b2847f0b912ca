import { lockCap } from '../../db/locks.ts';
import { assertAllowed } from '../../auth/scopes.ts';
import { newId } from '../../ids.ts';
import { builder } from '../builder.ts';
import { DeleteResult } from '../common/page.ts';
import { parseInput } from '../common/validation.ts';
import { pipelineCreateInput, pipelineUpdateInput } from './pipeline.inputs.ts';
import { findPipeline } from './pipeline.queries.ts';
import { assertDefaultKept, assertPipelineDeletable, DEFAULT_STAGES } from './pipeline.rules.ts';
import { PipelineType } from './pipeline.type.ts';
import { auditPipeline, clearDefault, PIPELINE_REFUSALS } from './pipeline.write.ts';
import { transaction } from '../../db/transaction.ts';
import { zodInput } from '../common/zod-input.ts';
import { assertVersion, EXPECTED_VERSION_HELP } from '../common/versions.ts';

const PipelineCreateInput = zodInput(
  'PipelineCreateInput',
  pipelineCreateInput,
  'A new pipeline; without stages it gets the default ones.',
);
const PipelineUpdateInput = zodInput(
  'PipelineUpdateInput',
  pipelineUpdateInput,
  'A new name, or is_default: true to make it the default pipeline.',
);

builder.mutationFields((t) => ({
  createPipeline: t.field({
    type: PipelineType,
    description: 'Creates a pipeline; without stages it gets the default ones.',
    args: { input: t.arg({ type: PipelineCreateInput, required: true }) },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'pipelines', 'write');
      const input = parseInput(pipelineCreateInput, args.input);
      return transaction(
        ctx.prisma,
        async (tx) => {
          const workspaceId = ctx.caller.workspaceId;
          if (input.is_default) await clearDefault(tx, workspaceId);
          const pipeline = await tx.pipeline.create({
            data: { id: newId('pipe'), workspaceId, name: input.name, isDefault: input.is_default ?? false },
          });
          await tx.stage.createMany({
            data: (input.stages ?? DEFAULT_STAGES).map((s, i) => ({
              id: newId('stg'),
              workspaceId,
              pipelineId: pipeline.id,
              name: s.name,
              probability: s.probability ?? 0,
              position: i + 1,
            })),
          });
          await auditPipeline(tx, ctx, 'created', null, pipeline);
          return pipeline;
        },
        PIPELINE_REFUSALS,
      );
    },
  }),
  updatePipeline: t.field({
    type: PipelineType,
    description: 'Renames a pipeline or makes it the default.',
    args: {
      id: t.arg.id({ required: true }),
      input: t.arg({ type: PipelineUpdateInput, required: true }),
      expected_version: t.arg.int({ description: EXPECTED_VERSION_HELP }),
    },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'pipelines', 'write');
      const input = parseInput(pipelineUpdateInput, args.input);
      return transaction(
        ctx.prisma,
        async (tx) => {
          await assertVersion(tx, 'pipelines', String(args.id), ctx.caller.workspaceId, args.expected_version);
          const pipeline = await findPipeline(tx, ctx, String(args.id));
          assertDefaultKept(pipeline.isDefault, input.is_default);
          if (input.is_default && !pipeline.isDefault) await clearDefault(tx, pipeline.workspaceId);
          const updated = await tx.pipeline.update({
            where: { id: pipeline.id },
            data: { name: input.name, isDefault: input.is_default },
          });
          await auditPipeline(tx, ctx, 'updated', pipeline, updated);
          return updated;
        },
        PIPELINE_REFUSALS,
      );
    },
  }),
  deletePipeline: t.field({
    type: DeleteResult,
    description:
      'Deletes an empty pipeline with its stages. ' +
      'Deleting the default makes the oldest remaining pipeline the default.',
    args: { id: t.arg.id({ required: true }), expected_version: t.arg.int({ description: EXPECTED_VERSION_HELP }) },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'pipelines', 'write');
      return transaction(
        ctx.prisma,
        async (tx) => {
          // Two deletes at once must not both count the other pipeline and leave none.
          await lockCap(tx, 'pipelines', ctx.caller.workspaceId);
          await assertVersion(tx, 'pipelines', String(args.id), ctx.caller.workspaceId, args.expected_version);
          const pipeline = await findPipeline(tx, ctx, String(args.id));
          const [dealCount, pipelineCount] = await Promise.all([
            tx.deal.count({ where: { pipelineId: pipeline.id } }),
            tx.pipeline.count({ where: { workspaceId: pipeline.workspaceId } }),
          ]);
          assertPipelineDeletable({ dealCount, pipelineCount });
          await tx.pipeline.delete({ where: { id: pipeline.id } });
          await auditPipeline(tx, ctx, 'deleted', pipeline, null);
          if (pipeline.isDefault) {
            const next = await tx.pipeline.findFirstOrThrow({
              where: { workspaceId: pipeline.workspaceId },
              orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
            });
            await tx.pipeline.update({ where: { id: next.id }, data: { isDefault: true } });
          }
          return { id: pipeline.id, deleted: true as const };
        },
        PIPELINE_REFUSALS,
      );
    },
  }),
}));
