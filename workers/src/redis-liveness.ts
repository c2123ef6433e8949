// Whether the queues' Redis is reachable right now, and the error a call
// that needed it gets while it is not: `queue_unavailable` (503 over HTTP),
// so an operator's dashboard call during a Redis outage is told what is
// wrong rather than answered with an internal error. Read from ioredis's own
// connection state, never from an error's message.
import type { Queue } from 'bullmq';
import { KeepGraphError } from '@keepgraph/core';

/** What the check reads of an ioredis client. */
interface Connection {
  status: string;
  stream?: { writable: boolean } | null;
  on(event: 'close' | 'reconnecting' | 'end', listener: () => void): unknown;
}

/** Whether Redis is up now; given `settledMs`, up and not seen down for that long. */
export type RedisLiveness = (settledMs?: number) => boolean;

/**
 * A synchronous check that every queue's connection is up: 'ready', and its
 * socket writable (when Redis goes, a command can fail on the closed socket
 * before ioredis has left 'ready': the test ioredis makes before it refuses
 * one). A connection not made yet counts as down. With `settledMs`, a
 * connection that closed or reconnected within that many ms also counts as
 * down: a call that began while Redis was away can fail after it is back.
 */
export function redisLiveness(queues: readonly Queue[]): RedisLiveness {
  const clients = new Map<Queue, Connection>();
  let lastDownAt = 0;
  const sawDown = () => {
    lastDownAt = Date.now();
  };
  for (const q of queues)
    q.client.then(
      (c: Connection) => {
        clients.set(q, c);
        for (const event of ['close', 'reconnecting', 'end'] as const) c.on(event, sawDown);
      },
      () => {},
    );
  return (settledMs = 0) => {
    const up = queues.every((q) => {
      const c = clients.get(q);
      return c?.status === 'ready' && c.stream?.writable === true;
    });
    if (!up) sawDown();
    return up && Date.now() - lastDownAt >= settledMs;
  };
}

/** The error of a call that needed Redis while it was unreachable; `cause` kept for logs. */
export function queueUnavailable(cause: unknown): KeepGraphError {
  const e = new KeepGraphError(
    'queue_unavailable',
    'the job queue (Redis) cannot be reached; writes go on, their jobs wait in the outbox',
  );
  (e as Error).cause = cause;
  return e;
}
