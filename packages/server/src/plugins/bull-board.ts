// Bull Board, the BullMQ dashboard, for operators: every queue's jobs, their
// data and errors, with retry and clean buttons. Mounted only when the server
// is given BullMQ queues, and only the operator role gets through.
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
import { toHttpError } from '../error-handler.ts';

/** Where Bull Board is mounted. */
export const BULL_BOARD_PATH = '/admin/queues';

/** Options of {@link bullBoardPlugin}. */
export interface BullBoardOptions {
  queues: readonly Queue[];
  /** Request body limit, for the error mapping (as the root's error handler). */
  bodyLimit: number;
  callerOf(request: FastifyRequest): Caller;
}

export const bullBoardPlugin: FastifyPluginAsync<BullBoardOptions> = async (app, opts) => {
  // Answered here rather than thrown: a throw would reach Bull Board's own
  // error handler (its routes' context), which knows nothing of KeepGraph
  // codes and answers 500. toHttpError keeps the usual status and body.
  app.addHook('onRequest', async (request, reply) => {
    try {
      requireRole(opts.callerOf(request), ['operator'], 'the queue dashboard');
    } catch (err) {
      const m = toHttpError(err, opts.bodyLimit);
      return reply.status(m.status).send(m.body);
    }
  });

  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(BULL_BOARD_PATH);
  createBullBoard({
    queues: opts.queues.map((q) => new BullMQAdapter(q)),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'KeepGraph jobs' } },
  });
  await app.register(serverAdapter.registerPlugin(), { prefix: BULL_BOARD_PATH });
};
