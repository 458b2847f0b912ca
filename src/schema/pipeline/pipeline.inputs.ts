// Pipeline and stage request shapes: snake_case fields on REST bodies and GraphQL `input` objects.
import { z } from 'zod';
import { inputNamed } from '../common/graphql-names.ts';
import { name255 } from '../common/validation.ts';

export const MAX_STAGES = 50;

const name = name255.min(1, 'is required');
const probability = z
  .number()
  .int('must be a whole number')
  .min(0, 'must be from 0 to 100')
  .max(100, 'must be from 0 to 100');
/** 1-based; its upper bound depends on the pipeline and is checked by the mutation. */
const position = z.number().int('must be a whole number').min(1, 'must be 1 or more');

const newStage = inputNamed(
  z.object({ name, probability: probability.optional() }),
  'PipelineStageInput',
  'A stage of a new pipeline, in order.',
);

export const pipelineCreateInput = z.object({
  name,
  is_default: z.boolean().optional(),
  stages: z
    .array(newStage)
    .min(1, 'a pipeline needs at least one stage')
    .max(MAX_STAGES, `at most ${MAX_STAGES} stages`)
    .optional(),
});

export const pipelineUpdateInput = z.object({ name, is_default: z.boolean() }).partial();

export const stageCreateInput = newStage.extend({ position: position.optional() });
export const stageUpdateInput = z.object({ name, probability, position }).partial();
