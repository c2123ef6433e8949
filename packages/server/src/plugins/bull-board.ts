// Bull Board, the BullMQ dashboard, for operators: every queue's jobs, their
// data and errors, with retry and clean buttons. Mounted only when the server
// is given BullMQ queues, and only the operator role gets through. While
// Redis is away its API answers 503 `queue_unavailable`.
//
// Registered as an encapsulated plugin (no fastify-plugin), so its role hook
// covers Bull Board's routes and nothing else. Bull Board's routes carry no
// body/querystring/response schemas (only `hide: true`), so the root's zod
// validator and serializer compilers are never asked to compile anything for
// them, and OpenAPI leaves them out.
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { Queue } from 'bullmq';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { requireRole, type Caller } from '@keepgraph/core';
import { queueUnavailable, redisLiveness } from '@keepgraph/workers';
import { sendError, toHttpError } from '../error-handler.ts';
import { RETRY_AFTER_SECONDS } from '../http-status.ts';

/** Where Bull Board is mounted. */
export const BULL_BOARD_PATH = '/admin/queues';

/** How long after Redis was last seen away a failing dashboard call is still the outage's. */
const REDIS_SETTLE_MS = 10_000;

/** Options of {@link bullBoardPlugin}. */
export interface BullBoardOptions {
  queues: readonly Queue[];
  /** Request body limit, for the error mapping (as the root's error handler). */
  bodyLimit: number;
  callerOf(request: FastifyRequest): Caller;
}

/** The statuses Bull Board's types allow an error handler to answer with. */
type BoardStatus = ReturnType<Parameters<FastifyAdapter['setErrorHandler']>[0]>['status'];

export const bullBoardPlugin: FastifyPluginAsync<BullBoardOptions> = async (app, opts) => {
  // Answered here rather than thrown: a throw would reach Bull Board's own
  // error handler (its routes' context), which knows nothing of KeepGraph
  // codes and answers 500. toHttpError keeps the usual status and body.
  app.addHook('onRequest', async (request, reply) => {
    try {
      requireRole(opts.callerOf(request), ['operator'], 'the queue dashboard');
    } catch (err) {
      const m = toHttpError(err, opts.bodyLimit);
      return sendError(reply, m);
    }
  });

  // Bull Board's error handler can set no header: the outage's Retry-After is added here.
  app.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode === 503)
      void reply.header('retry-after', String(RETRY_AFTER_SECONDS.queue_unavailable));
    return payload;
  });

  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(BULL_BOARD_PATH);
  createBullBoard({
    queues: opts.queues.map((q) => new BullMQAdapter(q)),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'KeepGraph jobs' } },
  });
  // Bull Board's own handler answers whatever its routes throw with a 500
  // and the thrown message (ioredis's, during a Redis outage). Ours: the
  // outage is 503 `queue_unavailable`, anything else the usual generic 500,
  // both in KeepGraph's error body. Its routes send their commands straight
  // to the queues' connections, without waiting for them to be ready, so
  // the outage lasts until Redis has been back for a few seconds.
  const redisUp = redisLiveness(opts.queues);
  serverAdapter.setErrorHandler((err) => {
    const outage = !redisUp(REDIS_SETTLE_MS);
    const m = toHttpError(outage ? queueUnavailable(err) : err, opts.bodyLimit);
    if (m.fault) app.log.error({ err }, 'queue dashboard request failed');
    // Bull Board's type lists the statuses its own handlers send (no 503);
    // its Fastify adapter sends whatever status it is given.
    return { status: m.status as BoardStatus, body: m.body };
  });
  await app.register(serverAdapter.registerPlugin(), { prefix: BULL_BOARD_PATH });
};
