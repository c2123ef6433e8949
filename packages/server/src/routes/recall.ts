// Read routes: recall (ranked memories with origins) and why (recall plus
// the lineage of every result).
import type { RecallOptions } from '@keepgraph/core';
import * as req from '../schemas/requests.ts';
import * as res from '../schemas/responses.ts';
import { routeFamily, useCaseRoute, type RouteRequest } from './use-case-route.ts';

/** The body is the query plus the options; the engine validates both. */
function recallArgs({
  params,
  body,
}: RouteRequest<{ ownerId: string }>): [string, unknown, RecallOptions] {
  const { query, ...opts } = body as Record<string, unknown>;
  return [params.ownerId, query, opts as RecallOptions];
}

export const recallRoutes = routeFamily('recall', [
  useCaseRoute('recall')({
    route: 'POST /owners/:ownerId/recall',
    summary:
      'Recall what matters for a query: few results, each with origin, authority and score breakdown',
    params: req.OwnerParams,
    body: req.RecallBody,
    response: res.RecallOut,
    // A read: asking again is already safe.
    idempotency: 'ignored',
    args: recallArgs,
  }),
  useCaseRoute('why')({
    route: 'POST /owners/:ownerId/why',
    summary: 'Recall plus the derivation graph of every result',
    params: req.OwnerParams,
    body: req.RecallBody,
    response: res.WhyOut,
    idempotency: 'ignored',
    args: recallArgs,
  }),
]);
