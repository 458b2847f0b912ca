// The board's data: the pipeline's stages and its deals of one status, read over GraphQL, and the
// sums shown for them (per currency: values in different currencies are never added together).
import { gql } from '../api/graphql.ts';

export type DealStatus = 'open' | 'won' | 'lost';

export interface Stage {
  id: string;
  name: string;
  position: number;
  probability: number;
}

export interface BoardDeal {
  id: string;
  title: string;
  value: number | null;
  currency: string;
  status: DealStatus;
  stage_id: string;
  closed_at: string | null;
  won_reason: string | null;
  lost_reason: string | null;
  contact: { first_name: string | null; last_name: string | null } | null;
}

export interface Board {
  stages: Stage[];
  deals: BoardDeal[];
  /** True when the pipeline has more deals of the status than the board loads. */
  truncated: boolean;
}

/** Amounts by ISO currency code. */
export type Sums = Map<string, number>;

const PAGE = 100;
const MAX_DEALS = 1000;

export async function loadBoard(pipelineId: string, status: DealStatus): Promise<Board> {
  const { pipelineStages } = await gql<{ pipelineStages: { nodes: Stage[] } }>(
    `query ($id: ID!) { pipelineStages(pipelineId: $id, limit: 100) { nodes { id name position probability } } }`,
    { id: pipelineId },
  );
  const deals: BoardDeal[] = [];
  let cursor: string | null = null;
  do {
    const page: { deals: { nodes: BoardDeal[]; next_cursor: string | null } } = await gql(
      `query ($filter: DealFilter, $cursor: String) {
        deals(filter: $filter, limit: ${PAGE}, cursor: $cursor, sort: [updated_at_desc]) {
        next_cursor nodes { id title value currency status stage_id closed_at won_reason lost_reason
        contact { first_name last_name } } } }`,
      { filter: { pipeline_id: pipelineId, status }, cursor },
    );
    deals.push(...page.deals.nodes);
    cursor = page.deals.next_cursor;
  } while (cursor && deals.length < MAX_DEALS);
  return { stages: pipelineStages.nodes, deals, truncated: Boolean(cursor) };
}

/** The deals' values summed per currency; a deal without a value counts as 0. */
export function sumValues(deals: Pick<BoardDeal, 'value' | 'currency'>[]): Sums {
  const sums: Sums = new Map();
  for (const d of deals) sums.set(d.currency, (sums.get(d.currency) ?? 0) + (d.value ?? 0));
  return sums;
}

/** The weighted forecast: each open deal's value times its stage's probability, per currency. */
export function weightedForecast(
  deals: Pick<BoardDeal, 'value' | 'currency' | 'status' | 'stage_id'>[],
  stages: Stage[],
): Sums {
  const probability = new Map(stages.map((s) => [s.id, s.probability]));
  const sums: Sums = new Map();
  for (const d of deals) {
    if (d.status !== 'open') continue;
    const weighted = ((d.value ?? 0) * (probability.get(d.stage_id) ?? 0)) / 100;
    sums.set(d.currency, (sums.get(d.currency) ?? 0) + weighted);
  }
  return sums;
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

export interface NewDeal {
  title: string;
  value: number | null;
  stage_id: string;
  contact_id: string | null;
}

export async function createDeal(pipelineId: string, deal: NewDeal): Promise<{ id: string }> {
  const { createDeal } = await gql<{ createDeal: { id: string } }>(
    'mutation ($input: DealCreateInput!) { createDeal(input: $input) { id } }',
    {
      input: {
        pipeline_id: pipelineId,
        title: deal.title,
        stage_id: deal.stage_id,
        ...(deal.value === null ? {} : { value: deal.value }),
        ...(deal.contact_id ? { contact_id: deal.contact_id } : {}),
      },
    },
  );
  return createDeal;
}
