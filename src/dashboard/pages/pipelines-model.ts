// Editing pipelines and their stages over GraphQL (createPipeline, updatePipeline, createStage,
// updateStage with a name, probability or position, deleteStage), and the page's rules apart from
// it: where a move up, down or a drop puts a stage, and why a stage may not be deleted.
import { gql } from '../api/graphql.ts';

export interface PipelineSummary {
  id: string;
  name: string;
  is_default: boolean;
  version: number;
}

export interface EditableStage {
  id: string;
  name: string;
  position: number;
  probability: number;
  version: number;
  /** Deals in the stage, any status (null when the caller may not read deals). */
  deal_count: number | null;
}

/** The API's limit on a pipeline's stages. */
export const MAX_STAGES = 50;

const PIPELINE_FIELDS = 'id name is_default version';
const STAGE_FIELDS = 'id name position probability version deal_count';

export const loadPipelines = () =>
  gql<{ pipelines: { nodes: PipelineSummary[] } }>(`{ pipelines(limit: 100) { nodes { ${PIPELINE_FIELDS} } } }`).then(
    (d) => d.pipelines.nodes,
  );

export const loadStages = (pipelineId: string) =>
  gql<{ pipelineStages: { nodes: EditableStage[] } }>(
    `query ($id: ID!) { pipelineStages(pipelineId: $id, limit: ${MAX_STAGES}) { nodes { ${STAGE_FIELDS} } } }`,
    { id: pipelineId },
  ).then((d) => d.pipelineStages.nodes);

export const createPipeline = (name: string, stageNames: string[]) =>
  gql<{ createPipeline: PipelineSummary }>(
    `mutation ($input: PipelineCreateInput!) { createPipeline(input: $input) { ${PIPELINE_FIELDS} } }`,
    { input: { name, ...(stageNames.length ? { stages: stageNames.map((n) => ({ name: n })) } : {}) } },
  ).then((d) => d.createPipeline);

export const updatePipeline = (p: PipelineSummary, input: { name?: string; is_default?: boolean }) =>
  gql<{ updatePipeline: PipelineSummary }>(
    `mutation ($id: ID!, $version: Int, $input: PipelineUpdateInput!) {
      updatePipeline(id: $id, expected_version: $version, input: $input) { ${PIPELINE_FIELDS} } }`,
    { id: p.id, version: p.version, input },
  ).then((d) => d.updatePipeline);

export const createStage = (pipelineId: string, input: { name: string; probability?: number }) =>
  gql<{ createStage: { id: string } }>(
    'mutation ($p: ID!, $input: StageCreateInput!) { createStage(pipelineId: $p, input: $input) { id } }',
    { p: pipelineId, input },
  ).then((d) => d.createStage);

/** Renames, sets the probability or moves the stage, over the version the page shows. */
export const updateStage = (
  pipelineId: string,
  stage: Pick<EditableStage, 'id' | 'version'>,
  input: { name?: string; probability?: number; position?: number },
) =>
  gql<{ updateStage: { id: string } }>(
    `mutation ($p: ID!, $id: ID!, $version: Int, $input: StageUpdateInput!) {
      updateStage(pipelineId: $p, id: $id, expected_version: $version, input: $input) { id } }`,
    { p: pipelineId, id: stage.id, version: stage.version, input },
  ).then((d) => d.updateStage);

export const deleteStage = (pipelineId: string, stage: Pick<EditableStage, 'id' | 'version'>) =>
  gql(
    `mutation ($p: ID!, $id: ID!, $version: Int) {
      deleteStage(pipelineId: $p, id: $id, expected_version: $version) { id } }`,
    {
      p: pipelineId,
      id: stage.id,
      version: stage.version,
    },
  );

/**
 * The position (1-based) a stage moves to one step up (-1) or down (+1); null at either end or
 * for a stage not in the list.
 */
export function stepPosition(stages: readonly { id: string }[], id: string, step: -1 | 1): number | null {
  const index = stages.findIndex((s) => s.id === id);
  if (index < 0) return null;
  const target = index + step;
  return target < 0 || target >= stages.length ? null : target + 1;
}

/**
 * The position (1-based) a dragged stage takes when dropped on another: the target's place, so
 * dropping on a later stage puts it after that one and on an earlier one before it. Null when
 * nothing moves.
 */
export function dropPosition(stages: readonly { id: string }[], draggedId: string, targetId: string): number | null {
  if (draggedId === targetId) return null;
  const from = stages.findIndex((s) => s.id === draggedId);
  const to = stages.findIndex((s) => s.id === targetId);
  return from < 0 || to < 0 ? null : to + 1;
}

/** The stages in the order they take once `id` is at `position`, as the API renumbers them. */
export function reordered<T extends { id: string }>(stages: readonly T[], id: string, position: number): T[] {
  const moving = stages.find((s) => s.id === id);
  if (!moving) return [...stages];
  const rest = stages.filter((s) => s.id !== id);
  const at = Math.min(Math.max(position - 1, 0), rest.length);
  return [...rest.slice(0, at), moving, ...rest.slice(at)];
}

/**
 * Why a stage may not be deleted, in the API's terms (a stage that holds deals keeps them; a
 * pipeline keeps one stage), or null when it may.
 */
export function deleteRefusal(stage: Pick<EditableStage, 'deal_count'>, stageCount: number): string | null {
  if (stage.deal_count) {
    const deals = stage.deal_count === 1 ? '1 deal' : `${stage.deal_count} deals`;
    return `Holds ${deals} (open or closed): move them to another stage before deleting it.`;
  }
  if (stageCount <= 1) return 'A pipeline needs at least one stage.';
  return null;
}

/** The stage names typed one per line, blank lines left out. */
export function stageNames(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
}
