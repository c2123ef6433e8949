// GET /metrics: the Prometheus exposition, for operators. Read with an
// operator credential (key or JWT) or with the metrics token, which reads
// this route and nothing else; any other credential is 403 forbidden_role,
// none 401 unauthenticated (the authentication hook's answer, as on every
// route). Like GET /v1/queues it is not a use-case: the figures are the
// process's, so the role is checked here with core's requireRole.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireRole } from '@keepgraph/core';
import { METRICS_PATH, isMetricsTokenRequest } from '../auth/authenticate.ts';
import type { ServerMetrics } from '../metrics/server-metrics.ts';
import * as res from '../schemas/responses.ts';
import type { RouteOptions } from './context.ts';

/**
 * The answer: text, not JSON. Its media type rides in the schema's `content`
 * (which @fastify/swagger takes as it is), so the errors stay JSON.
 */
const Exposition = z.string().meta({
  description: 'The Prometheus text exposition format, version 0.0.4',
  content: {
    'text/plain; version=0.0.4': {
      schema: {
        type: 'string',
        description: 'One sample a line, each family with # HELP and # TYPE',
      },
    },
  },
});

export interface MetricsRouteOptions extends Pick<RouteOptions, 'callerOf'> {
  metrics: ServerMetrics;
}

export const metricsRoutes: FastifyPluginAsyncZod<MetricsRouteOptions> = async (
  app,
  { callerOf, metrics },
) => {
  app.get(
    METRICS_PATH,
    {
      schema: {
        tags: ['operate'],
        summary:
          'Prometheus metrics, in the text exposition format (operator, or the metrics token)',
        description: [
          'Send an operator credential (`Authorization: Bearer <operator key or JWT>`) or the metrics token the server was started with (`--metrics-token` / `KEEPGRAPH_METRICS_TOKEN`), which reads this route and nothing else.',
          'Without either the answer is 401 `unauthenticated`; another role is 403 `forbidden_role`.',
          'Every metric is named `keepgraph_…`; labels hold route patterns, never URLs or owner ids. docs/metrics.md lists them.',
        ].join('\n\n'),
        response: res.withErrors({ 200: Exposition }),
      },
    },
    async (request, reply) => {
      if (!isMetricsTokenRequest(request))
        requireRole(callerOf(request), ['operator'], 'reading metrics');
      const body = await metrics.scrape();
      // A string with a non-JSON type is sent as it is (no serializer).
      return reply.type(metrics.contentType).header('cache-control', 'no-store').send(body);
    },
  );
};
