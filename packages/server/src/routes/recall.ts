// Read routes: recall (ranked memories with origins), why (recall plus
// the lineage of every result) and the read log of what recalls served.
import {
  ReadLogPageSchema,
  RecallResultSchema,
  WhyResultSchema,
  type RecallOptions,
} from '@keepgraph/core';
import * as req from '../schemas/requests.ts';
import { definedOnly, routeFamily, useCaseRoute, type RouteRequest } from './use-case-route.ts';

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
    response: RecallResultSchema,
    // A read: asking again is already safe.
    idempotency: 'ignored',
    args: recallArgs,
  }),
  useCaseRoute('why')({
    route: 'POST /owners/:ownerId/why',
    summary: 'Recall plus the derivation graph of every result',
    params: req.OwnerParams,
    body: req.RecallBody,
    response: WhyResultSchema,
    idempotency: 'ignored',
    args: recallArgs,
  }),
  useCaseRoute('readLog')({
    route: 'GET /owners/:ownerId/reads',
    summary:
      "The read log, newest first: which reads served the owner's memories, to which principal, in which session (keyed hash), when; `?memoryId=` for one memory's blast radius",
    params: req.OwnerParams,
    querystring: req.ReadLogQuery,
    response: ReadLogPageSchema,
    args: ({ params, query }) => [params.ownerId, definedOnly(query)],
  }),
]);
