// The fields an upsert may find a record by, per resource: read by the batch mutations
// (POST /v1/<resource>/batch) and by import jobs alike, so the two never disagree.
export const UPSERT_KEYS = {
  contacts: ['email', 'external_id'],
  companies: ['domain', 'external_id'],
  deals: ['external_id'],
  tasks: ['external_id'],
} as const satisfies Record<string, readonly [string, ...string[]]>;
