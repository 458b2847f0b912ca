// The filters of GET /v1/audit-log and the auditLog query: who, the kind of record, one record,
// and a time window.
import { z } from 'zod';
import { isoDateOrTime } from '../common/validation.ts';

export const auditLogFilter = z
  .object({
    actor_id: z
      .string()
      .min(1)
      .max(255)
      .optional()
      .meta({ description: 'Writes of this API key or user (its id), or `system`' }),
    resource: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .meta({ description: 'The kind of record written: contact, company, deal, task, activity, note, api_key…' }),
    record_id: z.string().min(1).max(255).optional().meta({ description: 'Writes of this record only' }),
    since: isoDateOrTime.optional().meta({ description: 'Writes at or after this time (ISO 8601)' }),
    until: isoDateOrTime.optional().meta({ description: 'Writes before this time (ISO 8601)' }),
  })
  .strip()
  .refine((f) => !f.since || !f.until || f.since < f.until, { path: ['until'], message: 'must be after since' });
