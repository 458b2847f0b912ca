// The live event bus behind GraphQL subscriptions: in memory for one instance, Redis pub/sub
// when instances must share it. One topic per workspace, so a subscriber only ever receives
// its own workspace's events.
//
// Best effort by design: subscriptions are live views, webhooks are the durable path. When
// Redis is down, publish logs and drops the event instead of throwing into the caller (the
// event feed), and subscribers simply see nothing until Redis is back.
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { Repeater } from 'graphql-yoga';
import { Redis } from 'ioredis';
import { AppError } from '../errors.ts';
import { redisLease, soleLease, type FeedLease } from './feed-lease.ts';

/** One committed event as live subscribers receive it. */
export interface PublishedEvent {
  id: string;
  event: string;
  /** ISO 8601 commit-side creation time of the event row. */
  timestamp: string;
  workspaceId: string;
  entityType: string;
  entityId: string;
  /** The event's place among its record's events: 1, 2, 3… in commit order. */
  sequence: number;
  data: Record<string, unknown>;
}

/**
 * A credential that ended, or a workspace whose keys' identities changed: every instance drops
 * what it cached of them and re-checks its open connections at once (auth/credential-push.ts).
 */
export interface CredentialNotice {
  /** SHA-256 hashes of API keys revoked or changed. */
  keyHashes?: string[];
  /** A workspace whose settings every cached key identity of it carries. */
  workspaceId?: string;
}

export interface EventBus {
  publish(e: PublishedEvent): void;
  subscribe(workspaceId: string): AsyncIterable<PublishedEvent>;
  /** Tells every instance (this one included) that credentials ended or changed. */
  announce(notice: CredentialNotice): void;
  /** Calls `listener` for every notice announced by any instance; returns the unsubscribe. */
  onNotice(listener: (notice: CredentialNotice) => void): () => void;
  /** Decides which instance's event feed publishes to this bus. */
  lease: FeedLease;
  close(): Promise<void>;
}

export interface BusLogger {
  warn(obj: object, msg: string): void;
}

export interface BusOptions {
  logger?: BusLogger;
  /** Namespace of channels and keys, so several deployments (or test runs) can share one Redis. */
  prefix?: string;
}

/**
 * Most events a subscriber may have received but not yet taken. One that reads no further (a
 * socket or stream its client stopped reading) would otherwise queue every event of its workspace;
 * past this its subscription ends with an error and it may subscribe again.
 */
export const MAX_EVENTS_BEHIND = 256;

type Listener = (event: Event) => void;
interface Topics {
  addEventListener(topic: string, listener: Listener): void;
  removeEventListener(topic: string, listener: Listener): void;
}

/**
 * The events of one topic, for one subscriber. Not yoga's pubsub.subscribe: its queue of untaken
 * events throws at 1,024 inside the event listener, an uncaught exception that ends the process.
 */
function follow(
  topics: Topics,
  topic: string,
  accept: (e: unknown) => boolean = () => true,
): AsyncIterable<PublishedEvent> {
  return new Repeater<PublishedEvent>((push, stop) => {
    let behind = 0;
    const listener: Listener = (event) => {
      if (!accept((event as CustomEvent<unknown>).detail)) return;
      if (behind >= MAX_EVENTS_BEHIND) {
        stop(
          new AppError(
            'service_unavailable',
            `The subscription fell more than ${MAX_EVENTS_BEHIND} events behind and was ended; subscribe again`,
          ),
        );
        return;
      }
      behind++;
      // Resolves once the subscriber has taken the event.
      void push((event as CustomEvent<PublishedEvent>).detail).then(() => behind--);
    };
    topics.addEventListener(topic, listener);
    void stop.then(() => topics.removeEventListener(topic, listener));
  });
}

/** What subscribers may be given from a channel others can write to: an event's shape, nothing else. */
function isPublishedEvent(e: unknown): e is PublishedEvent {
  if (typeof e !== 'object' || e === null) return false;
  const { id, event, timestamp, workspaceId, entityType, entityId, sequence, data } = e as PublishedEvent;
  // Every field subscribers' filters and fields read: one missing or of another type would fail
  // them and end every subscription of the workspace with an internal error.
  return (
    [id, event, workspaceId, entityType, entityId].every((v) => typeof v === 'string') &&
    typeof timestamp === 'string' &&
    !Number.isNaN(Date.parse(timestamp)) &&
    Number.isSafeInteger(sequence) &&
    typeof data === 'object' &&
    data !== null &&
    !Array.isArray(data)
  );
}

/** Most key hashes one notice may carry: anyone who can write to Redis can send one. */
export const MAX_NOTICE_KEYS = 1_000;

/** A notice's shape, checked on receipt: the channel is open to anyone with access to Redis. */
function isNotice(n: unknown): n is CredentialNotice {
  if (typeof n !== 'object' || n === null) return false;
  const { keyHashes, workspaceId } = n as CredentialNotice;
  if (workspaceId !== undefined && typeof workspaceId !== 'string') return false;
  if (keyHashes === undefined) return workspaceId !== undefined;
  return (
    Array.isArray(keyHashes) && keyHashes.length <= MAX_NOTICE_KEYS && keyHashes.every((h) => typeof h === 'string')
  );
}

/** Listens on `topic` for notices, each checked; returns the unsubscribe. */
function listenNotices(topics: Topics, topic: string, listener: (notice: CredentialNotice) => void): () => void {
  const onEvent: Listener = (event) => {
    const notice = (event as CustomEvent<unknown>).detail;
    if (isNotice(notice)) listener(notice);
  };
  topics.addEventListener(topic, onEvent);
  return () => topics.removeEventListener(topic, onEvent);
}

/**
 * The Redis event target sends SUBSCRIBE and UNSUBSCRIBE without handling their failure: one
 * that fails (Redis gone, or a subscription ending after close) would be an unhandled
 * rejection, which ends the process. This view of the client catches those two.
 */
function withHandledSubscribes(client: Redis, logger: BusLogger | undefined): Redis {
  return new Proxy(client, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      if (prop !== 'subscribe' && prop !== 'unsubscribe') return value.bind(target);
      return (...args: unknown[]) =>
        (value.apply(target, args) as Promise<unknown>).catch((err: Error) =>
          logger?.warn({ err: err.message }, `event bus: redis ${prop} failed`),
        );
    },
  });
}

export function createEventBus(redisUrl: string | null, opts: BusOptions = {}): EventBus {
  const prefix = opts.prefix ?? 'crm';
  const topic = (workspaceId: string) => `${prefix}:events:${workspaceId}`;
  const noticeTopic = `${prefix}:credentials`;

  if (!redisUrl) {
    const target = new EventTarget();
    return {
      publish: (e) => target.dispatchEvent(new CustomEvent(topic(e.workspaceId), { detail: e })),
      subscribe: (workspaceId) => follow(target, topic(workspaceId)),
      announce: (notice) => target.dispatchEvent(new CustomEvent(noticeTopic, { detail: notice })),
      onNotice: (listener) => listenNotices(target, noticeTopic, listener),
      lease: soleLease,
      close: async () => {},
    };
  }

  // Without an offline queue a publish fails at once while Redis is unreachable, rather than
  // piling up stale events to burst out on reconnect.
  const publishClient = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  // Subscriptions wait for the connection and are renewed after a reconnect.
  const subscribeClient = new Redis(redisUrl, { maxRetriesPerRequest: null });
  for (const client of [publishClient, subscribeClient]) {
    client.on('error', (err: Error) => opts.logger?.warn({ err: err.message }, 'event bus: redis unavailable'));
  }
  // The target parses each message in the Redis client's event handler, where a throw would end
  // the process: a message that is not JSON (another deployment on the channel, anyone with
  // access to Redis) is logged and dropped instead.
  const serializer = {
    stringify: (v: unknown) => JSON.stringify(v),
    parse: (message: string): unknown => {
      try {
        return JSON.parse(message);
      } catch {
        opts.logger?.warn({ bytes: message.length }, 'event bus: dropped a message that is not JSON');
        return null;
      }
    },
  };
  const target = createRedisEventTarget({
    publishClient,
    subscribeClient: withHandledSubscribes(subscribeClient, opts.logger),
    serializer,
  });

  return {
    // Published here rather than through the target's dispatchEvent: the Redis event target does not
    // handle a rejected PUBLISH, which would surface as an unhandled rejection. The framing
    // (JSON of the event on the topic's channel) is the one the target's listener parses.
    publish: (e) => {
      publishClient.publish(topic(e.workspaceId), JSON.stringify(e)).catch((err: Error) => {
        opts.logger?.warn({ err: err.message, eventId: e.id }, 'event bus: live event dropped');
      });
    },
    subscribe: (workspaceId) => follow(target as Topics, topic(workspaceId), isPublishedEvent),
    // A lost notice (Redis down) costs promptness only: cached identities expire on their own
    // and open connections are re-checked on an interval (authenticate.ts, credential-watch.ts).
    announce: (notice) => {
      publishClient.publish(noticeTopic, JSON.stringify(notice)).catch((err: Error) => {
        opts.logger?.warn({ err: err.message }, 'event bus: credential notice dropped');
      });
    },
    onNotice: (listener) => listenNotices(target as Topics, noticeTopic, listener),
    lease: redisLease(publishClient, prefix),
    // disconnect, not quit: QUIT would wait in the offline queue forever while Redis is down,
    // and there is nothing worth flushing in a best-effort bus.
    close: async () => {
      publishClient.disconnect();
      subscribeClient.disconnect();
    },
  };
}
