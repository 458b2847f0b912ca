// Delivery bodies. `event` format (envelope A): `{ id, event, sequence, timestamp, workspace_id, data }`;
// `record` format (envelope B): `{ event, sequence, timestamp, webhook_id, account_id, data: <record> }`.
// Their JSON Schemas per event type: catalogue/envelopes.ts.
import { eventDefinition } from '../events/catalogue/index.ts';

export interface EventForDelivery {
  id: string;
  type: string;
  /** The event's place among its record's events (1, 2, 3…); 0 for test sends. */
  sequence: number;
  workspaceId: string;
  createdAt: Date;
  data: Record<string, unknown>;
}

/** The full record an event is about (envelope B's `data`), as its catalogue definition makes it. */
export function recordOf(event: Pick<EventForDelivery, 'type' | 'data'>): Record<string, unknown> {
  const definition = eventDefinition(event.type);
  // Only test sends of names nothing emits yet have no definition: their sample is sent as it is.
  return definition ? (definition.toRecord(event.data) as Record<string, unknown>) : event.data;
}

export function buildPayload(format: string, event: EventForDelivery, subscriptionId: string): Record<string, unknown> {
  const timestamp = event.createdAt.toISOString();
  if (format === 'record') {
    return {
      event: event.type,
      sequence: event.sequence,
      timestamp,
      webhook_id: subscriptionId,
      account_id: event.workspaceId,
      data: recordOf(event),
    };
  }
  return {
    id: event.id,
    event: event.type,
    sequence: event.sequence,
    timestamp,
    workspace_id: event.workspaceId,
    data: event.data,
  };
}

/** The raw body sent, and its content type (`form` posts the JSON as a `payload` field). */
export function encodeBody(
  contentType: string,
  payload: Record<string, unknown>,
): { body: string; contentType: string } {
  const json = JSON.stringify(payload);
  if (contentType === 'form')
    return {
      body: new URLSearchParams({ payload: json }).toString(),
      contentType: 'application/x-www-form-urlencoded',
    };
  return { body: json, contentType: 'application/json' };
}
