// The board's data: stages with totals and the pipeline's deals, read over GraphQL.
import { gql } from '../api/graphql.ts';

export interface Stage {
  id: string;
  name: string;
  position: number;
  probability: number;
  deal_count: number;
  total_value: number;
}

export interface BoardDeal {
  id: string;
  title: string;
  value: number | null;
  currency: string;
  status: 'open' | 'won' | 'lost';
  stage_id: string;
  contact: { first_name: string | null; last_name: string | null } | null;
}

export interface Board {
  stages: Stage[];
  deals: BoardDeal[];
  /** True when the pipeline has more deals than the board loads. */
  truncated: boolean;
}

const PAGE = 100;
const MAX_DEALS = 1000;

export async function loadBoard(pipelineId: string): Promise<Board> {
  const { pipelineStages } = await gql<{ pipelineStages: { nodes: Stage[] } }>(
    `query ($id: ID!) { pipelineStages(pipelineId: $id, limit: 100) {
      nodes { id name position probability deal_count total_value } } }`,
    { id: pipelineId },
  );
  const deals: BoardDeal[] = [];
  let cursor: string | null = null;
  do {
    const page: { deals: { nodes: BoardDeal[]; next_cursor: string | null } } = await gql(
      `query ($filter: DealFilter, $cursor: String) {
        deals(filter: $filter, limit: ${PAGE}, cursor: $cursor, sort: [updated_at_desc]) {
        next_cursor nodes { id title value currency status stage_id contact { first_name last_name } } } }`,
      { filter: { pipeline_id: pipelineId }, cursor },
    );
    deals.push(...page.deals.nodes);
    cursor = page.deals.next_cursor;
  } while (cursor && deals.length < MAX_DEALS);
  return { stages: pipelineStages.nodes, deals, truncated: Boolean(cursor) };
}

export async function moveDeal(id: string, stageId: string, note: string): Promise<void> {
  await gql(
    'mutation ($id: ID!, $input: DealStageMoveInput!) { moveDealStage(id: $id, input: $input) { id stage_id } }',
    {
      id,
      input: { stage_id: stageId, ...(note ? { note } : {}) },
    },
  );
}

export async function closeDeal(id: string, status: 'won' | 'lost', reason: string): Promise<void> {
  await gql('mutation ($id: ID!, $input: DealUpdateInput!) { updateDeal(id: $id, input: $input) { id status } }', {
    id,
    input: { status, ...(reason ? { [`${status}_reason`]: reason } : {}) },
  });
}
