// The filters of GET /v1/events and the eventLog query: event names, the kind of record, one
// record, and a time window. Names and kinds are checked here, so a typo is a 400 naming it
// rather than an empty page.
import { z } from 'zod';
import { EMITTED_EVENTS } from '../../events/names.ts';
import { isoDateOrTime } from '../common/validation.ts';

/** The kinds of record events are about, as events name them (`contact.updated` is about a contact). */
export const EVENT_RESOURCES = ['contact', 'company', 'deal', 'task', 'activity', 'import'] as const;
export type EventResource = (typeof EVENT_RESOURCES)[number];

/** Plural names (`contacts`, as the API's paths say) are taken too. */
const PLURALS: Record<string, EventResource> = {
  contacts: 'contact',
  companies: 'company',
  deals: 'deal',
  tasks: 'task',
  activities: 'activity',
  imports: 'import',
};

const emitted = new Set<string>(EMITTED_EVENTS);

export const eventLogFilter = z
  .object({
    type: z
      .string()
      .max(2000)
      .transform((s, ctx) => {
        const names = [...new Set(s.split(',').map((n) => n.trim()))].filter(Boolean);
        if (names.length === 0) {
          ctx.addIssue({ code: 'custom', message: 'must name at least one event, or be left out' });
          return z.NEVER;
        }
        const unknown = names.filter((n) => !emitted.has(n));
        if (unknown.length) {
          ctx.addIssue({ code: 'custom', message: `unknown event name(s): ${unknown.slice(0, 10).join(', ')}` });
          return z.NEVER;
        }
        return names;
      })
      .optional()
      .meta({ description: 'Event names, comma-separated (contact.created,deal.won)' }),
    resource: z
      .string()
      .transform((s, ctx) => {
        const kind = (EVENT_RESOURCES as readonly string[]).includes(s)
          ? (s as EventResource)
          : Object.hasOwn(PLURALS, s)
            ? PLURALS[s]
            : undefined;
        if (!kind) {
          ctx.addIssue({ code: 'custom', message: `must be one of ${EVENT_RESOURCES.join(', ')}` });
          return z.NEVER;
        }
        return kind;
      })
      .optional()
      .meta({ description: 'The kind of record: contact, company, deal, task or activity (plurals too)' }),
    record_id: z.string().min(1).max(255).optional().meta({ description: 'Events about this record only' }),
    since: isoDateOrTime.optional().meta({ description: 'Events at or after this time (ISO 8601)' }),
    until: isoDateOrTime.optional().meta({ description: 'Events before this time (ISO 8601)' }),
  })
  .strip()
  .refine((f) => !f.since || !f.until || f.since < f.until, { path: ['until'], message: 'must be after since' });
