// Admission of GraphQL operations run by yoga (HTTP, SSE and WebSocket) to the answer pool: a
// query or mutation reserves its estimate before it runs; the reservation is given back once its
// answer has been written: on HTTP when the response's connection is done with it, on a WebSocket
// when the operation completes or its socket closes (websocket.ts), otherwise when it has run.
// A client that goes away abandons its operation. Subscriptions hold no reservation: each event
// is bounded by the response budget and a socket's unread output by its own limit.
import type { ServerResponse } from 'node:http';
import { type AnswerPool, Busy, estimateOf, type Reservation } from '../http/answer-pool.ts';
import { abandon, AnswerPoolFull, holdReservation, stopped } from './response-budget.ts';

/**
 * How long an answer may take to be written to an HTTP client once
 * admitted; past it the connection is cut and its reservation freed.
 */
export const ANSWER_WRITE_DEADLINE_MS = 60_000;

/** Operations whose reservation their WebSocket gives back. */
const socketOperations = new WeakSet<object>();
const reservations = new WeakMap<object, Reservation>();

/** Marks an operation as run over a WebSocket: releaseOperation gives its reservation back. */
export function runsOverSocket(context: object): void {
  socketOperations.add(context);
}

/** Gives back what a WebSocket operation holds; abandons it when its socket has gone. */
export function releaseOperation(context: object, gone = false): void {
  if (gone) abandon(context);
  reservations.get(context)?.release();
}

/** Reserves room for an operation of this cost (after a wait, maybe), or gives the refusal to answer with. */
export async function admit(
  pool: AnswerPool,
  context: object,
  cost: number,
  maxResponseBytes: number,
): Promise<{ reservation: Reservation } | { refusal: AnswerPoolFull }> {
  const res = (context as { res?: ServerResponse }).res;
  let reservation: Reservation;
  try {
    reservation = await pool.reserve(estimateOf(cost, maxResponseBytes));
  } catch (err) {
    if (err instanceof Busy) return { refusal: new AnswerPoolFull(err.message) };
    throw err;
  }
  reservations.set(context, reservation);
  holdReservation(context, reservation);
  // Its client went away while it waited: it answers nothing, and holds nothing.
  if (stopped(context)) reservation.release();
  else if (res) {
    if (res.writableFinished || res.destroyed) {
      abandon(context);
      reservation.release();
    } else {
      const deadline = setTimeout(() => res.destroy(), ANSWER_WRITE_DEADLINE_MS).unref();
      res.once('close', () => {
        clearTimeout(deadline);
        if (!res.writableFinished) abandon(context);
        reservation.release();
      });
    }
  }
  return { reservation };
}

/** Whether the reservation of this operation is given back by someone else than the end of its run. */
export const releasedElsewhere = (context: object) =>
  socketOperations.has(context) || Boolean((context as { res?: ServerResponse }).res);
