// One deal's page data over GraphQL: its fields, stage history and contacts, its activities, and the
// workspace's users to pick an owner from.
import { gql } from '../api/graphql.ts';
import type { DealStatus } from './pipeline-model.ts';

export interface Deal {
  id: string;
  title: string;
  value: number | null;
  currency: string;
  status: DealStatus;
  version: number;
  expected_close_date: string | null;
  owner_id: string | null;
  owner: { id: string; name: string } | null;
  pipeline_id: string;
  pipeline: { name: string; stages: { id: string; name: string }[] } | null;
  stage_id: string;
  stage_name: string;
  closed_at: string | null;
  won_reason: string | null;
  lost_reason: string | null;
  created_at: string;
  updated_at: string;
  stage_history: {
    from_stage_name: string | null;
    to_stage_name: string;
    changed_at: string;
    note: string | null;
    changed_by: { type: string; name: string } | null;
  }[];
  contacts: {
    contact_id: string;
    first_name: string | null;
    last_name: string | null;
    email: string | null;
    role: string | null;
    is_primary: boolean;
  }[];
}

export interface Activity {
  id: string;
  type: string;
  subject: string | null;
  description: string | null;
  outcome: string | null;
  duration: number | null;
  occurred_at: string;
}

export interface User {
  id: string;
  name: string;
  active: boolean;
}

const DEAL_FIELDS = `id title value currency status version expected_close_date owner_id owner { id name }
  pipeline_id pipeline { name stages { id name } } stage_id stage_name closed_at won_reason lost_reason
  created_at updated_at
  stage_history { from_stage_name to_stage_name changed_at note changed_by { type name } }
  contacts { contact_id first_name last_name email role is_primary }`;

export const loadDeal = (id: string) =>
  gql<{ deal: Deal }>(`query ($id: ID!) { deal(id: $id) { ${DEAL_FIELDS} } }`, { id }).then((d) => d.deal);

export const loadActivities = (dealId: string, cursor: string | null) =>
  gql<{ dealActivities: { nodes: Activity[]; next_cursor: string | null } }>(
    `query ($id: ID!, $cursor: String) { dealActivities(dealId: $id, limit: 25, cursor: $cursor) {
      next_cursor nodes { id type subject description outcome duration occurred_at } } }`,
    { id: dealId, cursor },
  ).then((d) => d.dealActivities);

export const loadUsers = () =>
  gql<{ users: { nodes: User[] } }>('{ users(limit: 100) { nodes { id name active } } }').then((d) => d.users.nodes);

/** Writes the changed fields, only over the version the page shows (a conflict is answered, not overwritten). */
export const updateDeal = (deal: Deal, input: Record<string, unknown>) =>
  gql<{ updateDeal: Deal }>(
    `mutation ($id: ID!, $version: Int, $input: DealUpdateInput!) {
      updateDeal(id: $id, expected_version: $version, input: $input) { ${DEAL_FIELDS} } }`,
    { id: deal.id, version: deal.version, input },
  ).then((d) => d.updateDeal);

/** Moves the deal to another stage of its pipeline, over the version the page shows. */
export const moveDealToStage = (deal: Deal, stageId: string) =>
  gql<{ moveDealStage: Deal }>(
    `mutation ($id: ID!, $version: Int, $input: DealStageMoveInput!) {
      moveDealStage(id: $id, expected_version: $version, input: $input) { ${DEAL_FIELDS} } }`,
    { id: deal.id, version: deal.version, input: { stage_id: stageId } },
  ).then((d) => d.moveDealStage);

export const addDealContact = (dealId: string, contactId: string, role: string) =>
  gql(
    `mutation ($id: ID!, $input: DealContactInput!) {
      addDealContact(dealId: $id, input: $input) { contact_id role } }`,
    { id: dealId, input: { contact_id: contactId, ...(role ? { role } : {}) } },
  );

export const removeDealContact = (dealId: string, contactId: string) =>
  gql('mutation ($d: ID!, $c: ID!) { removeDealContact(dealId: $d, contactId: $c) { id deleted } }', {
    d: dealId,
    c: contactId,
  });
