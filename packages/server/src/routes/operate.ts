// Operator routes: the audit log, its verification, the KPIs, an expiry
// run on demand and the job queues' figures. The engine refuses the first
// four to any role but operator; the queue figures do not pass through the
// engine, so their route checks the role itself with core's requireRole.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireRole, type QueueMetricsSource } from '@keepgraph/core';
import { AuditQuery } from '../schemas/requests.ts';
import {
  AuditEventOut,
  AuditVerifyOut,
  ExpiryRunOut,
  KpisOut,
  QueuesOut,
  withErrors,
} from '../schemas/responses.ts';
import type { RouteOptions } from './context.ts';

/** Options of {@link operateRoutes}: the shared ones plus where queue figures come from. */
export interface OperateRouteOptions extends RouteOptions {
  /** The job runner's figures; absent when the server runs without one. */
  queueMetrics?: QueueMetricsSource;
}

export const operateRoutes: FastifyPluginAsyncZod<OperateRouteOptions> = async (
  app,
  { engine, callerOf, queueMetrics },
) => {
  app.get(
    '/audit',
    {
      schema: {
        tags: ['operate'],
        summary: 'Audit events in sequence order (operator)',
        querystring: AuditQuery,
        response: withErrors({ 200: z.object({ events: z.array(AuditEventOut) }) }),
      },
    },
    async (request) => ({ events: await engine.auditList(callerOf(request), request.query) }),
  );

  app.get(
    '/audit/verify',
    {
      schema: {
        tags: ['operate'],
        summary: 'Walk the hash chain and report the first edit or gap (operator)',
        response: withErrors({ 200: AuditVerifyOut }),
      },
    },
    async (request) => engine.auditVerify(callerOf(request)),
  );

  app.get(
    '/kpis',
    {
      schema: {
        tags: ['operate'],
        summary:
          'Aggregate figures: attribution share, refusals, deletions, expiry on-schedule share (operator)',
        response: withErrors({ 200: KpisOut }),
      },
    },
    async (request) => engine.kpis(callerOf(request)),
  );

  app.post(
    '/expire',
    {
      schema: {
        tags: ['operate'],
        summary: 'Purge what is due for expiry now, with the deletion cascade (operator)',
        response: withErrors({ 200: ExpiryRunOut }),
      },
    },
    async (request) => engine.expireDue(callerOf(request)),
  );

  app.get(
    '/queues',
    {
      schema: {
        tags: ['operate'],
        summary:
          'Per job queue: waiting, active, delayed, failed and completed counts, and recent processing times (operator)',
        description:
          'A server started without a job runner answers `configured: false` and no queues rather than an error, so a dashboard can poll it either way.',
        response: withErrors({ 200: QueuesOut }),
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
