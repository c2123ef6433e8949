// Read routes: recall (ranked memories with origins) and why (recall plus
// the lineage of every result).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { RecallOptions } from '@keepgraph/core';
import { OwnerParams, RecallBody } from '../schemas/requests.ts';
import { RecallOut, WhyOut, withErrors } from '../schemas/responses.ts';
import type { RouteOptions } from './context.ts';

/** Split the body into the query and the options; the engine validates both. */
function splitRecallBody(body: unknown): { query: unknown; opts: RecallOptions } {
  const { query, ...opts } = body as Record<string, unknown>;
  return { query, opts: opts as RecallOptions };
}

export const recallRoutes: FastifyPluginAsyncZod<RouteOptions> = async (
  app,
  { engine, callerOf },
) => {
  app.post(
    '/owners/:ownerId/recall',
    {
      schema: {
        tags: ['recall'],
        summary:
          'Recall what matters for a query: few results, each with origin, authority and score breakdown',
        params: OwnerParams,
        body: RecallBody,
        response: withErrors({ 200: RecallOut }),
      },
    },
    async (request) => {
      const { query, opts } = splitRecallBody(request.body);
      return engine.recall(callerOf(request), request.params.ownerId, query, opts);
    },
  );

  app.post(
    '/owners/:ownerId/why',
    {
      schema: {
        tags: ['recall'],
        summary: 'Recall plus the derivation graph of every result',
        params: OwnerParams,
        body: RecallBody,
        response: withErrors({ 200: WhyOut }),
      },
    },
    async (request) => {
      const { query, opts } = splitRecallBody(request.body);
      return engine.why(callerOf(request), request.params.ownerId, query, opts);
    },
  );
};
