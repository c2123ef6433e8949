// Operator routes: the audit log, its verification, the KPIs and an expiry
// run on demand. The engine refuses them to any role but operator.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AuditQuery } from '../schemas/requests.ts';
import {
  AuditEventOut,
  AuditVerifyOut,
  ExpiryRunOut,
  KpisOut,
  withErrors,
} from '../schemas/responses.ts';
import type { RouteOptions } from './context.ts';

export const operateRoutes: FastifyPluginAsyncZod<RouteOptions> = async (
  app,
  { engine, callerOf },
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
};
