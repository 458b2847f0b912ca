// POST /v1/webhooks/:id/recover and recoverWebhookEvents: every event of a time window that the
// subscription matches (its names and filters) is queued for it again, with its own event id, as
// a redelivery in the delivery log. For a receiver that lost what it was sent, or refused it until
// the subscription was turned off. The worker sends them under the usual caps on deliveries per
// workspace and per host; one call queues at most RECOVER_MAX and says where to go on from.
import { assertAllowed, assertMayReadEvents } from '../../auth/scopes.ts';
import { AppError } from '../../errors.ts';
import { subjectOf } from '../../events/catalogue/index.ts';
import { newId } from '../../ids.ts';
import { matchesFilters } from '../../webhooks/filters.ts';
import { builder } from '../builder.ts';
import type { Context } from '../context.ts';
import { parseInput } from '../common/validation.ts';
import { zodInput } from '../common/zod-input.ts';
import { assertOutboundRoom, assertSecretUsable } from './webhook.caps.ts';
import { findWebhook } from './webhook.queries.ts';
import { recoverInput } from './webhook.inputs.ts';

/** Events one call queues at most; `next_since` names where the next call starts. */
export const RECOVER_MAX = 10_000;

const RecoverInput = zodInput('WebhookRecoverInput', recoverInput, 'A window of time whose events to send again.');

interface RecoverAnswer {
  queued: number;
  skipped_pending: number;
  has_more: boolean;
  next_since: Date | null;
}

const RecoverResult = builder.objectRef<RecoverAnswer>('WebhookRecoverResult').implement({
  description: 'What a recovery queued.',
  fields: (t) => ({
    queued: t.exposeInt('queued', { description: 'Events queued again, each a new entry of the delivery log' }),
    skipped_pending: t.exposeInt('skipped_pending', {
      description:
        'Events of the window whose delivery is still to come (scheduled, or not fanned out yet): not queued twice',
    }),
    has_more: t.exposeBoolean('has_more', { description: `The window holds more than ${RECOVER_MAX} such events` }),
    next_since: t.expose('next_since', {
      type: 'DateTime',
      nullable: true,
      description: 'With has_more: the since of the next call (the rest of the window); null otherwise',
    }),
  }),
});

interface Candidate {
  id: string;
  type: string;
  created_at: Date;
  data: Record<string, unknown> | null;
  pending: boolean;
}

async function recover(ctx: Context, webhookId: string, input: unknown): Promise<RecoverAnswer> {
  const window = parseInput(recoverInput, input);
  if (window.until.getTime() > Date.now() + 60_000)
    throw new AppError('validation_error', 'The window must end by now', { until: ['must not be in the future'] });
  const sub = await findWebhook(ctx.prisma, ctx, webhookId);
  assertMayReadEvents(ctx.caller, sub.events);
  assertSecretUsable(ctx, sub);
  // One call counts as one redelivery against the workspace's cap; the deliveries it queues are
  // paced by the worker's caps like any others.
  await assertOutboundRoom(ctx, 'redeliver', sub, 1);
  const filtered = sub.filters !== null && typeof sub.filters === 'object';
  // Nothing from before the subscription existed: recovery resends what it was meant to get.
  const from = new Date(Math.max(window.since.getTime(), sub.createdAt.getTime()));
  return ctx.sql.transaction(async (query) => {
    const rows = await query<Candidate>(
      `SELECT e.id, e.type, e.created_at, ${filtered ? 'e.data' : 'NULL::jsonb AS data'},
        -- Not fanned out yet (the dispatcher will), or a delivery still scheduled: not queued twice.
        (EXISTS (SELECT 1 FROM event_dispatch_queue q WHERE q.seq = e.seq) OR EXISTS (SELECT 1 FROM webhook_deliveries d
          WHERE d.subscription_id = $2 AND d.event_id = e.id AND d.status = 'pending')) AS pending
      FROM events e
      WHERE e.workspace_id = $1 AND e.type = ANY($3::text[]) AND e.created_at >= $4 AND e.created_at < $5
      ORDER BY e.seq LIMIT ${RECOVER_MAX + 1}`,
      [sub.workspaceId, sub.id, sub.events, from, window.until],
    );
    const hasMore = rows.length > RECOVER_MAX;
    const taken = rows.slice(0, RECOVER_MAX);
    const matching = taken.filter(
      (e) => !filtered || matchesFilters(sub.filters, subjectOf(e.type, (e.data ?? {}) as Record<string, unknown>)),
    );
    const due = matching.filter((e) => !e.pending);
    if (due.length)
      await query(
        `INSERT INTO webhook_deliveries
          (id, workspace_id, subscription_id, event_id, event, redelivery, next_attempt_at, updated_at)
        SELECT v.id, $1, $2, v.event_id, v.event, true, now(), now()
        FROM jsonb_to_recordset($3::jsonb) AS v(id text, event_id text, event text)`,
        [
          sub.workspaceId,
          sub.id,
          JSON.stringify(due.map((e) => ({ id: newId('dlv'), event_id: e.id, event: e.type }))),
        ],
      );
    return {
      queued: due.length,
      skipped_pending: matching.length - due.length,
      has_more: hasMore,
      next_since: hasMore ? new Date(rows[RECOVER_MAX].created_at) : null,
    };
  });
}

builder.mutationField('recoverWebhookEvents', (t) =>
  t.field({
    type: RecoverResult,
    description:
      'Queues again every event of a time window that the subscription matches, keeping event ids: one ' +
      `redelivery per event in the delivery log, at most ${RECOVER_MAX} per call. Counts one redelivery ` +
      'against the workspace cap (rate_limited when spent).',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: RecoverInput, required: true }) },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'webhooks', 'write');
      return recover(ctx, String(args.id), args.input);
    },
  }),
);
