// Prometheus metrics for one app instance. Each instance has its own registry, never
// prom-client's global one: tests run several apps in one process and each must count alone.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** What a delivery attempt came to: sent, scheduled again, or given up. */
export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed';

export interface DeliveryQueueSample {
  /** Pending deliveries of active subscriptions. */
  depth: number;
  /** Seconds since the oldest of them was created; 0 when there is none. */
  oldestAgeSeconds: number;
}

/**
 * Client-chosen GraphQL operation names become label values; past this many distinct names,
 * new ones are counted as "other" so a client cannot grow the series without bound.
 */
const MAX_OPERATION_NAMES = 200;

export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests = new Counter({
    name: 'crm_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'crm_http_request_duration_seconds',
    help: 'Time from receiving an HTTP request to the end of its response, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly graphqlOperations = new Counter({
    name: 'crm_graphql_operations_total',
    help: 'GraphQL operations run (HTTP and WebSocket), by operation name, type and result (ok or error)',
    labelNames: ['operation', 'type', 'result'] as const,
    registers: [this.registry],
  });
  readonly graphqlDuration = new Histogram({
    name: 'crm_graphql_operation_duration_seconds',
    help: 'Execution time of GraphQL queries and mutations, by operation name and type',
    labelNames: ['operation', 'type'] as const,
    registers: [this.registry],
  });
  readonly graphqlCompilations = new Counter({
    name: 'crm_graphql_compilations_total',
    help:
      'GraphQL documents prepared to run as compiled code (GRAPHQL_COMPILE_AFTER), by outcome: compiled; ' +
      "interpreted (subscriptions, and documents graphql-jit cannot run); postponed (the minute's compile " +
      'budget spent: run interpreted meanwhile). A steady rise means clients send ever new documents',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly webhookDeliveries = new Counter({
    name: 'crm_webhook_deliveries_total',
    help:
      'Webhook delivery attempts recorded by this process, by outcome: ' +
      'delivered, retrying (failed, will be retried) or failed (given up)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly rateLimited = new Counter({
    name: 'crm_rate_limit_rejections_total',
    help: 'Requests refused with 429, by rate-limit plan (unauthenticated requests draw from "standard" per address)',
    labelNames: ['plan'] as const,
    registers: [this.registry],
  });
  readonly eventsPruned = new Counter({
    name: 'crm_events_pruned_total',
    help: 'Events deleted from the event log past its retention (EVENT_RETENTION_DAYS)',
    registers: [this.registry],
  });
  private readonly operationNames = new Set<string>();

  /**
   * @param deliveryQueue read at scrape time for the queue gauges; it should be one cheap query.
   */
  constructor(deliveryQueue: () => Promise<DeliveryQueueSample>) {
    collectDefaultMetrics({ register: this.registry });
    // Both gauges are collected concurrently on a scrape: they share one query.
    let sampling: Promise<DeliveryQueueSample> | null = null;
    const sample = () =>
      (sampling ??= deliveryQueue()
        .catch(() => ({ depth: Number.NaN, oldestAgeSeconds: Number.NaN }))
        .finally(() => (sampling = null)));
    new Gauge({
      name: 'crm_webhook_delivery_queue_depth',
      help:
        'Pending webhook deliveries of active subscriptions (due now or waiting for a retry); ' +
        'NaN when the database did not answer',
      registers: [this.registry],
      async collect() {
        this.set((await sample()).depth);
      },
    });
    new Gauge({
      name: 'crm_webhook_delivery_oldest_pending_age_seconds',
      help:
        'Age of the oldest pending webhook delivery of an active subscription; ' +
        'NaN when the database did not answer',
      registers: [this.registry],
      async collect() {
        this.set((await sample()).oldestAgeSeconds);
      },
    });
  }

  /** The label for a GraphQL operation name, bounded (see MAX_OPERATION_NAMES). */
  operationLabel(name: string | null | undefined): string {
    if (!name) return 'anonymous';
    if (this.operationNames.has(name)) return name;
    if (this.operationNames.size >= MAX_OPERATION_NAMES) return 'other';
    this.operationNames.add(name);
    return name;
  }
}
