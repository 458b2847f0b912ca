// What every route of the API reference shares: the envelopes, the headers every answer carries,
// one response per error status (its codes read from the one error table, src/errors.ts), and
// the bearer key scheme.
import { STATUS_CODES } from 'node:http';
import { ERROR_CODES } from '../../errors.ts';
import { httpStatus } from '../../errors.ts';
import type { JsonSchema } from './request.ts';

const ref = (kind: 'schemas' | 'responses' | 'headers', name: string) => ({ $ref: `#/components/${kind}/${name}` });

interface Header {
  description: string;
  /** Present on every answer the header is listed on. */
  required: boolean;
  schema: JsonSchema;
}

const HEADERS: Record<string, Header> = {
  'X-Request-Id': {
    description:
      'The request id, also in `meta.request_id`: the one the client sent, when it sent a usable one; ' +
      "on an idempotent replay, the first call's, as the replayed body holds it.",
    required: true,
    schema: { type: 'string' },
  },
  'X-API-Version': {
    description: 'The API version that answered.',
    required: true,
    schema: { type: 'string', const: 'v1' },
  },
  'X-RateLimit-Limit': {
    description: "Requests per minute of the key's plan.",
    required: true,
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': { description: 'Requests left in the bucket.', required: true, schema: { type: 'integer' } },
  'X-RateLimit-Reset': {
    description: 'Unix time (seconds) when the bucket is full again.',
    required: true,
    schema: { type: 'integer' },
  },
  'Retry-After': { description: 'Seconds to wait before sending again.', required: true, schema: { type: 'integer' } },
  ETag: {
    description:
      'The record\'s version as a strong entity tag (`"3"`), the same number as `version` in the body. ' +
      'Send it back as If-Match to change only that version, or as If-None-Match to get a 304 while it is unchanged.',
    required: true,
    schema: { type: 'string', pattern: '^"[1-9][0-9]*"$' },
  },
  'Idempotent-Replayed': {
    description:
      'Only on a replay: this answer is the stored first answer to the same `Idempotency-Key` and body, ' +
      'and nothing was changed again.',
    required: false,
    schema: { type: 'string', const: 'true' },
  },
};

/**
 * Every answer of a documented operation carries these, errors included: the request id and
 * version are set before routing (src/http/request-id.ts), the rate headers by the key check that
 * runs before everything else under /v1, also for requests without a valid key, which draw from a
 * per-address bucket (src/http/auth.ts).
 */
export const commonHeaders = Object.fromEntries(
  ['X-Request-Id', 'X-API-Version', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'].map((h) => [
    h,
    ref('headers', h),
  ]),
);

/** Single-record answers name the record's version. */
export const etagHeader = { ETag: ref('headers', 'ETag') };

/** A read whose If-None-Match names the record's current version: no body. */
export const notModifiedResponse = {
  description: 'Not Modified: the record is at a version If-None-Match names; no body.',
  headers: { ...commonHeaders, ...etagHeader },
};

/** The success answers of POST and PUT, which take an Idempotency-Key, may be replays. */
export const writeSuccessHeaders = { ...commonHeaders, 'Idempotent-Replayed': ref('headers', 'Idempotent-Replayed') };

const SCHEMAS: Record<string, JsonSchema> = {
  Meta: {
    type: 'object',
    properties: {
      request_id: { type: 'string' },
      timestamp: { type: 'string', format: 'date-time' },
      warnings: {
        type: 'array',
        items: { type: 'string' },
        description: 'Non-fatal notes, e.g. custom fields that were dropped.',
      },
    },
    required: ['request_id', 'timestamp'],
  },
  ListMeta: {
    allOf: [ref('schemas', 'Meta')],
    type: 'object',
    properties: {
      total: { type: 'integer', description: 'Rows matching the filters, on all pages.' },
      limit: { type: 'integer' },
      has_more: { type: 'boolean' },
      next_cursor: {
        type: ['string', 'null'],
        description: 'Pass it as `cursor` for the next page; null on the last page.',
      },
    },
    required: ['total', 'limit', 'has_more', 'next_cursor'],
  },
  ErrorEnvelope: {
    type: 'object',
    properties: {
      success: { const: false },
      error: {
        type: 'object',
        properties: {
          code: { type: 'string', enum: [...ERROR_CODES] },
          message: { type: 'string' },
          details: {
            type: 'object',
            description:
              'Field name → messages, for the fields at fault; besides them, facts to act on: ' +
              '`existing_id` (a 409: the record that holds the value) and `current_version` ' +
              "(a 412: the record's version now).",
            properties: {
              existing_id: { type: 'string', description: 'The id of the record a conflict is with.' },
              current_version: { type: 'integer', description: "The record's current version." },
            },
            additionalProperties: { type: 'array', items: { type: 'string' } },
          },
        },
        required: ['code', 'message'],
      },
      meta: ref('schemas', 'Meta'),
    },
    required: ['success', 'error', 'meta'],
  },
};

/** `{ success: true, data, meta }`; lists carry the page fields in `meta`. */
export function successEnvelope(data: JsonSchema, list: boolean): JsonSchema {
  return {
    type: 'object',
    properties: { success: { const: true }, data, meta: ref('schemas', list ? 'ListMeta' : 'Meta') },
    required: ['success', 'data', 'meta'],
  };
}

const responseName = (status: number) => (STATUS_CODES[status] ?? `Status${status}`).replace(/[^A-Za-z]/g, '');

function errorResponse(status: number) {
  const codes = ERROR_CODES.filter((c) => httpStatus(c) === status);
  return {
    description: `${STATUS_CODES[status]}: ${codes.map((c) => `\`${c}\``).join(', ')}`,
    headers: RETRY_AFTER.has(status)
      ? { ...commonHeaders, 'Retry-After': ref('headers', 'Retry-After') }
      : commonHeaders,
    content: {
      'application/json': {
        schema: ref('schemas', 'ErrorEnvelope'),
        example: {
          success: false,
          error: { code: codes[0], message: '…' },
          meta: { request_id: 'req_…', timestamp: '2025-01-01T00:00:00.000Z' },
        },
      },
    },
  };
}

/** The statuses documented as shared error responses. */
export const ERROR_RESPONSES = [400, 401, 403, 404, 409, 412, 413, 415, 422, 429, 500, 503];
/** A refused rate (429) and an unreachable database (503, src/rest/errors.ts) always say when to retry. */
const RETRY_AFTER = new Set([429, 503]);

export const errorResponseRef = (status: number) => ref('responses', responseName(status));

export const sharedComponents = {
  securitySchemes: {
    bearerAuth: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'crm_live_… or crm_test_…',
      description:
        'An API key: `Authorization: Bearer crm_live_<32 characters>` (production data) or `crm_test_…` (the sandbox).',
    },
  },
  schemas: SCHEMAS,
  responses: Object.fromEntries(ERROR_RESPONSES.map((s) => [responseName(s), errorResponse(s)])),
  headers: HEADERS,
};
