// Oversight routes: the audit log and the KPIs (operators, and analysts for
// their owners), its verification and an expiry run on demand (operators
// only; the engine refuses any other role) and the
// job queues' figures. Those figures are the job runner's, not the memory
// engine's, so their route is the one under /v1 that is not a use-case: it
// checks the role itself with core's requireRole.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AuditEventSchema,
  AuditVerificationSchema,
  ExpiryRunSchema,
  KpisSchema,
  requireRole,
} from '@keepgraph/core';
import { type QueueMetricsSource } from '@keepgraph/core/jobs';
import * as req from '../schemas/requests.ts';
import * as res from '../schemas/responses.ts';
import type { RouteOptions } from './context.ts';
import { definedOnly, routeFamily, useCaseRoute } from './use-case-route.ts';

export const operateRoutes = routeFamily('operate', [
  useCaseRoute('auditList')({
    route: 'GET /audit',
    summary:
      'Audit events in sequence order (operators; an analyst for one of its owners, `?ownerId=`)',
    querystring: req.AuditQuery,
    response: z.object({ events: z.array(AuditEventSchema) }),
    args: ({ query }) => [definedOnly(query)],
    reply: (events) => ({ events }),
  }),
  useCaseRoute('auditVerify')({
    route: 'GET /audit/verify',
    summary: 'Walk the hash chain and report the first edit or gap (operator)',
    response: AuditVerificationSchema,
    args: () => [],
  }),
  useCaseRoute('kpis')({
    route: 'GET /kpis',
    summary:
      'Aggregate figures: attribution share, median age, refusals, deletions and their propagation time, expiry on-schedule share, and a daily series of the last 90 days (operators; an analyst for one of its owners, `?ownerId=`)',
    querystring: req.KpisQuery,
    response: KpisSchema,
    args: ({ query }) => [definedOnly(query)],
  }),
  useCaseRoute('expireDue')({
    route: 'POST /expire',
    summary: 'Purge what is due for expiry now, with the deletion cascade (operator)',
    response: ExpiryRunSchema,
    args: () => [],
  }),
]);

/** Options of {@link queueRoutes}: the shared ones plus where queue figures come from. */
export interface QueueRouteOptions extends RouteOptions {
  /** The job runner's figures; absent when the server runs without one. */
  queueMetrics?: QueueMetricsSource;
}

/** The routes under /v1 that are not use-cases, by `METHOD url` (checked by a test). */
export const NOT_USE_CASE_ROUTES = ['GET /queues'] as const;

export const queueRoutes: FastifyPluginAsyncZod<QueueRouteOptions> = async (
  app,
  { callerOf, queueMetrics },
) => {
  app.get(
    '/queues',
    {
      schema: {
        tags: ['operate'],
        summary:
          'Per job queue: waiting, active, delayed, failed and completed counts, and recent processing times (operator)',
        description:
          'A server started without a job runner answers `configured: false` and no queues rather than an error, so a dashboard can poll it either way.',
        response: res.withErrors({ 200: res.QueuesOut }),
      },
    },
    async (request) => {
      requireRole(callerOf(request), ['operator'], 'reading queue metrics');
      return queueMetrics
        ? { configured: true, queues: await queueMetrics.queueMetrics() }
        : { configured: false, queues: [] };
    },
  );
};
