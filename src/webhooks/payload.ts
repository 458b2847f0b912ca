// Delivery bodies. `event` format (envelope A): `{ id, event, timestamp, workspace_id, data }`;
// `record` format (envelope B): `{ event, timestamp, webhook_id, account_id, data: <record> }`.

export interface EventForDelivery {
  id: string;
  type: string;
  workspaceId: string;
  createdAt: Date;
  data: Record<string, any>;
}

const RECORD_KEYS = ['contact', 'deal', 'task', 'activity'];

/** The full record an event is about (envelope B's `data`). */
export function recordOf(event: EventForDelivery): Record<string, unknown> {
  if (event.type === 'deal.stage_changed' && event.data.deal) {
    const d = event.data.deal;
    return {
      id: d.id,
      title: d.title,
      value: d.value,
      currency: d.currency,
      previous_stage: d.previous_stage_name ?? null,
      new_stage: d.stage_name ?? null,
      pipeline: d.pipeline_name ?? d.pipeline_id ?? null,
      owner: d.owner ?? (d.owner_id ? { id: d.owner_id, name: d.owner_name ?? null } : null),
    };
  }
  const key = RECORD_KEYS.find((k) => event.data[k] && typeof event.data[k] === 'object');
  return key ? event.data[key] : event.data;
}

export function buildPayload(format: string, event: EventForDelivery, subscriptionId: string): Record<string, unknown> {
  if (format === 'record') {
    return { event: event.type, timestamp: event.createdAt.toISOString(), webhook_id: subscriptionId, account_id: event.workspaceId, data: recordOf(event) };
  }
  return { id: event.id, event: event.type, timestamp: event.createdAt.toISOString(), workspace_id: event.workspaceId, data: event.data };
}

/** The raw body sent, and its content type (`form` posts the JSON as a `payload` field). */
export function encodeBody(contentType: string, payload: Record<string, unknown>): { body: string; contentType: string } {
  const json = JSON.stringify(payload);
  if (contentType === 'form') return { body: new URLSearchParams({ payload: json }).toString(), contentType: 'application/x-www-form-urlencoded' };
  return { body: json, contentType: 'application/json' };
}
