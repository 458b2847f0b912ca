// One process-wide pool of answer bytes: every query or mutation (REST, GraphQL over HTTP or SSE,
// GraphQL over WebSocket) reserves what its answer may hold before it runs, and gives it back once
// the answer has been written to its connection. Each answer is bounded on its own (the response
// budget); this bounds them together, so that many large answers at once (from one key or many)
// cannot take the heap: an answer of N bytes costs the process about 3 N while it exists (the
// values, the JSON text, the bytes written).
// - The reservation is the operation's estimate (its cost, about 1 KiB per unit: objects and the
//   KiB of long texts, see src/graphql/cost.ts), at most the per-answer budget; an answer that turns out
//   larger grows its reservation as it is counted, or is cut with 503 when the pool has no room.
// - An operation that does not fit waits, in a bounded queue and for a bounded time, for answers
//   to be written; past either it is refused with 503 service_unavailable and Retry-After.
// - Any operation is admitted when nothing else is in flight, so the largest answer the budget
//   allows always runs; small operations (ordinary pages and records) may also use a headroom
//   above the pool, so a few large answers never hold up ordinary traffic.
import { AppError, UNAVAILABLE_RETRY_AFTER_SECONDS } from '../errors.ts';

export interface AnswerPoolLimits {
  /** Bytes of answers (estimated, then counted) in flight at once (ANSWER_POOL_BYTES). */
  maxBytes: number;
  /** Operations that may wait for room; more are refused at once. */
  maxWaiting: number;
  /** How long an operation waits for room before it is refused. */
  maxWaitMs: number;
}

/** An estimate this small is an ordinary operation: it may use the headroom. */
export const SMALL_ANSWER_BYTES = 256 * 1024;
/** Bytes above maxBytes only small operations may use. */
export const SMALL_HEADROOM_BYTES = 16 * 1024 * 1024;
/** Bytes one unit of an operation's cost stands for. */
export const BYTES_PER_COST = 1024;
/** Seconds a refused caller is asked to wait (as every 503 of the API says). */
export const ANSWER_RETRY_AFTER_SECONDS = UNAVAILABLE_RETRY_AFTER_SECONDS;

export const DEFAULT_ANSWER_POOL: AnswerPoolLimits = { maxBytes: 24 * 1024 * 1024, maxWaiting: 200, maxWaitMs: 10_000 };

/** The bytes to reserve for an operation of this cost whose answer may hold at most maxResponseBytes. */
export const estimateOf = (cost: number, maxResponseBytes: number) =>
  Math.min(maxResponseBytes, Math.max(BYTES_PER_COST, Math.ceil(cost) * BYTES_PER_COST));

export class Busy extends AppError {
  readonly retryAfter = ANSWER_RETRY_AFTER_SECONDS;
  constructor(message: string) {
    super('service_unavailable', message);
  }
}

export interface Reservation {
  /** Bytes held. */
  readonly bytes: number;
  /** Holds `total` bytes in all if the pool has room for the difference; false when it has not. */
  growTo(total: number): boolean;
  /** Gives the bytes back; later calls do nothing. */
  release(): void;
}

interface Waiter {
  bytes: number;
  admit: (r: Reservation) => void;
  timer: NodeJS.Timeout;
}

export class AnswerPool {
  private inFlight = 0;
  private operations = 0;
  private readonly waiting: Waiter[] = [];

  constructor(readonly limits: AnswerPoolLimits = DEFAULT_ANSWER_POOL) {}

  /** Bytes reserved now (for metrics and tests). */
  get reservedBytes(): number {
    return this.inFlight;
  }

  private fits(bytes: number): boolean {
    if (this.operations === 0) return true;
    const room = this.limits.maxBytes + (bytes <= SMALL_ANSWER_BYTES ? SMALL_HEADROOM_BYTES : 0);
    return this.inFlight + bytes <= room;
  }

  private take(bytes: number): Reservation {
    this.inFlight += bytes;
    this.operations++;
    let held = bytes;
    let released = false;
    return {
      get bytes() {
        return held;
      },
      growTo: (total) => {
        if (released || total <= held) return true;
        if (this.inFlight + (total - held) > this.limits.maxBytes && this.operations > 1) return false;
        this.inFlight += total - held;
        held = total;
        return true;
      },
      release: () => {
        if (released) return;
        released = true;
        this.inFlight -= held;
        this.operations--;
        this.admitWaiting();
      },
    };
  }

  private admitWaiting(): void {
    for (let i = 0; i < this.waiting.length; ) {
      const w = this.waiting[i];
      if (!this.fits(w.bytes)) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      clearTimeout(w.timer);
      w.admit(this.take(w.bytes));
    }
  }

  /** Reserves `bytes`, at once or after a wait; rejects with Busy when the queue is full or the wait too long. */
  reserve(bytes: number): Reservation | Promise<Reservation> {
    if (this.fits(bytes) && this.waiting.length === 0) return this.take(bytes);
    if (this.fits(bytes) && bytes <= SMALL_ANSWER_BYTES) return this.take(bytes);
    if (this.waiting.length >= this.limits.maxWaiting) return Promise.reject(this.busy());
    return new Promise<Reservation>((resolve, reject) => {
      const waiter: Waiter = {
        bytes,
        admit: resolve,
        timer: setTimeout(() => {
          const i = this.waiting.indexOf(waiter);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(this.busy());
        }, this.limits.maxWaitMs),
      };
      this.waiting.push(waiter);
    });
  }

  /** The refusal of an operation the pool has no room for. */
  busy(): Busy {
    return new Busy(
      `The server is busy with large answers; retry in ${ANSWER_RETRY_AFTER_SECONDS} s, or ask for smaller pages`,
    );
  }
}
