import { assertAllowed } from '../../auth/scopes.ts';
import { notFound } from '../../errors.ts';
import { newId } from '../../ids.ts';
import type { Prisma } from '../../db/generated/client/client.ts';
import { builder } from '../builder.ts';
import type { Context } from '../context.ts';
import { DeleteResult } from '../common/page.ts';
import { parseInput } from '../common/validation.ts';
import { MAX_STAGES, stageCreateInput, stageUpdateInput } from './pipeline.inputs.ts';
import { assertStageDeletable, assertStageRoom, reorder } from './pipeline.rules.ts';
import { StageType } from './pipeline.type.ts';
import { auditStage, lockPipeline, PIPELINE_REFUSALS, renumber, stagesInOrder } from './pipeline.write.ts';
import { transaction } from '../../db/transaction.ts';
import { zodInput } from '../common/zod-input.ts';
import { assertLockedVersion, EXPECTED_VERSION_HELP } from '../common/versions.ts';

const StageCreateInput = zodInput(
  'StageCreateInput',
  stageCreateInput,
  'A new stage; without a position it goes last, else later stages shift down.',
);
const StageUpdateInput = zodInput(
  'StageUpdateInput',
  stageUpdateInput,
  'Fields to change; a new position shifts the stages between.',
);

/** The pipeline (locked) and its stages in order; 404 when either id is not the caller's. */
async function loadStage(tx: Prisma.TransactionClient, ctx: Context, pipelineId: string, stageId: string) {
  const pipeline = await lockPipeline(tx, ctx, pipelineId);
  const stages = await stagesInOrder(tx, pipeline.id);
  const stage = stages.find((s) => s.id === stageId);
  if (!stage) throw notFound('Stage');
  return { stage, stages };
}

builder.mutationFields((t) => ({
  createStage: t.field({
    type: StageType,
    description: 'Adds a stage; without a position it goes last, else later stages shift down.',
    args: { pipelineId: t.arg.id({ required: true }), input: t.arg({ type: StageCreateInput, required: true }) },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'pipelines', 'write');
      const input = parseInput(stageCreateInput, args.input);
      return transaction(
        ctx.prisma,
        async (tx) => {
          const pipeline = await lockPipeline(tx, ctx, String(args.pipelineId));
          const stages = await stagesInOrder(tx, pipeline.id);
          assertStageRoom(stages.length, MAX_STAGES);
          const id = newId('stg');
          const order = reorder(
            stages.map((s) => s.id),
            id,
            input.position ?? stages.length + 1,
          );
          await renumber(tx, stages, order);
          const created = await tx.stage.create({
            data: {
              id,
              workspaceId: pipeline.workspaceId,
              pipelineId: pipeline.id,
              name: input.name,
              probability: input.probability ?? 0,
              position: order.indexOf(id) + 1,
            },
          });
          await auditStage(tx, ctx, 'created', null, created);
          return created;
        },
        PIPELINE_REFUSALS,
      );
    },
  }),
  updateStage: t.field({
    type: StageType,
    description: 'Renames a stage, changes its probability, or moves it to another position (the others shift).',
    args: {
      pipelineId: t.arg.id({ required: true }),
      id: t.arg.id({ required: true }),
      input: t.arg({ type: StageUpdateInput, required: true }),
      expected_version: t.arg.int({ description: EXPECTED_VERSION_HELP }),
    },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'pipelines', 'write');
      const input = parseInput(stageUpdateInput, args.input);
      return transaction(
        ctx.prisma,
        async (tx) => {
          const { stage, stages } = await loadStage(tx, ctx, String(args.pipelineId), String(args.id));
          assertLockedVersion(stage, args.expected_version);
          if (input.position !== undefined)
            await renumber(
              tx,
              stages,
              reorder(
                stages.map((s) => s.id),
                stage.id,
                input.position,
              ),
            );
          const updated = await tx.stage.update({
            where: { id: stage.id },
            data: { name: input.name, probability: input.probability },
          });
          await auditStage(tx, ctx, 'updated', stage, updated);
          return updated;
        },
        PIPELINE_REFUSALS,
      );
    },
  }),
  deleteStage: t.field({
    type: DeleteResult,
    description: 'Deletes an empty stage; later stages move up.',
    args: {
      pipelineId: t.arg.id({ required: true }),
      id: t.arg.id({ required: true }),
      expected_version: t.arg.int({ description: EXPECTED_VERSION_HELP }),
    },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'pipelines', 'write');
      return transaction(
        ctx.prisma,
        async (tx) => {
          const { stage, stages } = await loadStage(tx, ctx, String(args.pipelineId), String(args.id));
          assertLockedVersion(stage, args.expected_version);
          assertStageDeletable({
            dealCount: await tx.deal.count({ where: { stageId: stage.id } }),
            stageCount: stages.length,
          });
          await tx.stage.delete({ where: { id: stage.id } });
          await auditStage(tx, ctx, 'deleted', stage, null);
          const rest = stages.filter((s) => s.id !== stage.id);
          await renumber(
            tx,
            rest,
            rest.map((s) => s.id),
          );
          return { id: stage.id, deleted: true as const };
        },
        PIPELINE_REFUSALS,
      );
    },
  }),
}));
