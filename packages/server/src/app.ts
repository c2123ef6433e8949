// The HTTP app as a tree of plugins (STYLE: Fastify): error handling and the
// zod compilers on the root, then OpenAPI, then the route plugins under /v1
// and the health check (all after OpenAPI, which learns routes as they are added),
// and Bull Board for operators when the server is given BullMQ queues.
// It receives a ready Engine and owns nothing: whoever opened the runtime
// closes it (see main.ts), so tests can build apps over any engine and drive
// them with inject() without a socket.
import { randomUUID } from 'node:crypto';
import Fastify, {
  LogController,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Queue } from 'bullmq';
import cors from '@fastify/cors';
import {
  KeepGraphError,
  MAX_OWNER_ID_CHARS,
  type Caller,
  type Credential,
  type Engine,
} from '@keepgraph/core';
import { type QueueMetricsSource } from '@keepgraph/core/jobs';
import {
  authenticationPlugin,
  callerOfRequest,
  type AuthenticationOptions,
} from './auth/authenticate.ts';
import {
  answerClientError,
  installErrorHandling,
  sendError,
  toHttpError,
} from './error-handler.ts';
import { createServerMetrics, type ServerMetrics } from './metrics/server-metrics.ts';
import { bullBoardPlugin } from './plugins/bull-board.ts';
import { openApiPlugin } from './plugins/openapi.ts';
import type { RouteOptions } from './routes/context.ts';
import { forgetRoutes } from './routes/forget.ts';
import { graphRoutes } from './routes/graph.ts';
import { healthRoutes } from './routes/health.ts';
import { KEEPGRAPH_VERSION } from '@keepgraph/runtime/version';
import { identityRoutes } from './routes/identity.ts';
import { keyRoutes } from './routes/keys.ts';
import { kvRoutes } from './routes/kv.ts';
import { memoryRoutes } from './routes/memories.ts';
import { mcpRoutes } from './routes/mcp.ts';
import { metricsRoutes } from './routes/metrics.ts';
import { operateRoutes, queueRoutes } from './routes/operate.ts';
import { recallRoutes } from './routes/recall.ts';
import { sessionRoutes } from './routes/sessions.ts';
import { uiRoutes } from './routes/ui.ts';
import { exposedRoutes } from './routes/exposed.ts';
import { registerUseCaseRoutes } from './routes/use-case-route.ts';
import { isValidatedByEngine } from './schemas/requests.ts';

/** Every use-case route under /v1, by family. */
export const USE_CASE_ROUTES = [
  ...memoryRoutes,
  ...graphRoutes,
  ...recallRoutes,
  ...forgetRoutes,
  ...kvRoutes,
  ...sessionRoutes,
  ...operateRoutes,
  ...keyRoutes,
  ...identityRoutes,
  // Derived from the registry rows that declare their exposure.
  ...exposedRoutes(),
];

/**
 * What a browser on an allowed origin may send: every method a /v1 route
 * answers (@fastify/cors allows only GET, HEAD and POST by default, which
 * left correcting, putting a value and forgetting to curl).
 */
export const CORS_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * Answer headers a browser app may read besides the CORS-safelisted ones:
 * how long to wait after a 429 or 503, and whether an Idempotency-Key
 * answer was replayed. Request headers (Authorization, Idempotency-Key,
 * Content-Type) are allowed as the preflight asks for them.
 */
export const CORS_EXPOSED_HEADERS = ['retry-after', 'idempotent-replayed'];

/**
 * Request body limit: 256 KiB. Memory text is capped at 32 000 characters by
 * core (up to ~128 KB of UTF-8), so a single write never needs more; anything
 * larger is refused with 413 `payload_too_large` before it is parsed.
 * Batch writes have their own, larger limit (see routes/memories.ts).
 */
export const BODY_LIMIT_BYTES = 256 * 1024;

/**
 * How callers are known. By default every request but the public ones needs
 * a credential (an API key of the store, or a JWT if `jwt` is given).
 * `trustedCaller` instead treats every request as that caller: for tests
 * and for embedding the app in a process that authenticates on its own;
 * `keepgraph start` never sets it.
 */
export type AppAuth = Omit<AuthenticationOptions, 'engine'> | { trustedCaller: Credential };

/** Options of {@link buildApp}. */
export interface AppOptions {
  engine: Engine;
  /** Authentication (default: credentials required, API keys only). */
  auth?: AppAuth;
  /** Origins allowed by CORS; absent or empty: CORS off. */
  corsOrigins?: readonly string[];
  /** Fastify logger option; off by default (tests). Authorization headers are redacted. */
  logger?: boolean | Exclude<FastifyServerOptions['logger'], boolean | undefined>;
  /** The version /healthz, the OpenAPI document and keepgraph_info show (default: this package's). */
  version?: string;
  /**
   * The job runner, for operators: `metrics` answers GET /v1/queues (which
   * reports `configured: false` without it); `bullQueues`, when the jobs run
   * on BullMQ, mounts Bull Board at /admin/queues. The app does not close them.
   */
  queues?: { metrics: QueueMetricsSource; bullQueues?: readonly Queue[] };
  /**
   * The Prometheus metrics served at GET /metrics. Pass the ones whose
   * `observe` the engine was made with (startServer does) so the engine's
   * work is counted; absent: the app makes its own, which count requests
   * and read the scrape-time figures only.
   */
  metrics?: ServerMetrics;
}

/**
 * Request log lines name the route pattern (`/v1/owners/:ownerId/kv/:key`),
 * never the URL: a URL holds owner ids, keys and session ids, which are
 * user text. Fastify's own lines (incoming request, route not found) carry
 * the raw URL, so they are replaced by one line per completed request.
 */
class RoutePatternLog extends LogController {
  override incomingRequest(): void {}
  override routeNotFound(): void {}
  override requestCompleted(_err: unknown, request: FastifyRequest, reply: FastifyReply): void {
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url ?? '(no route)',
        statusCode: reply.statusCode,
        responseTimeMs: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request completed',
    );
  }
}

/** Paths in log lines that must never be written: credentials. */
const REDACTED = ['req.headers.authorization', 'headers.authorization'];

function loggerOption(logger: AppOptions['logger']): FastifyServerOptions['logger'] {
  if (!logger) return false;
  return { ...(logger === true ? {} : logger), redact: { paths: REDACTED, censor: '[redacted]' } };
}

/** Validator for parts the engine validates itself: only "is it a JSON object?". */
function jsonObjectOnly(data: unknown): { value: unknown } | { error: Error } {
  if (typeof data === 'object' && data !== null && !Array.isArray(data)) return { value: data };
  return { error: new Error('must be a JSON object') };
}

/**
 * Build the KeepGraph HTTP app over an engine. Call `await app.ready()` (or
 * `listen`) before use; `inject()` does that itself.
 */
export function buildApp(opts: AppOptions): FastifyInstance {
  const app = Fastify({
    logger: loggerOption(opts.logger),
    bodyLimit: BODY_LIMIT_BYTES,
    // A path parameter is an owner id, a memory id, a key or a session id:
    // up to MAX_OWNER_ID_CHARS characters, each up to 4 UTF-8 bytes sent as
    // %XX (Fastify's default of 100 made longer owners unreachable).
    routerOptions: { maxParamLength: MAX_OWNER_ID_CHARS * 12 },
    // Request ids end up in audit events and read logs: keep them unique, not sequential per process.
    genReqId: () => randomUUID(),
    logController: new RoutePatternLog(),
    // Errors raised while routing, before any handler (a malformed %-escape,
    // a path segment over maxParamLength), skip setErrorHandler: answer them
    // in our format too.
    frameworkErrors: (err, _request, reply) => {
      const m = toHttpError(err, BODY_LIMIT_BYTES);
      void sendError(reply as FastifyReply, m);
    },
    // And requests Node's HTTP parser refuses, before Fastify sees them.
    clientErrorHandler: answerClientError,
  });

  app.setValidatorCompiler((route) =>
    isValidatedByEngine(route.schema)
      ? jsonObjectOnly
      : validatorCompiler(route as Parameters<typeof validatorCompiler>[0]),
  );
  app.setSerializerCompiler(serializerCompiler);
  // A JSONL file as it is (POST …/import): its lines, for the engine to judge one by one.
  app.addContentTypeParser('application/x-ndjson', { parseAs: 'string' }, (_req, body, done) => {
    done(null, { lines: String(body).split(/\r?\n/) });
  });
  installErrorHandling(app, BODY_LIMIT_BYTES);

  // The answer's ceiling (invariant 13): every read that grows with the data
  // is paged or cut before it is built; this is the backstop for an answer
  // that still came out bigger, refused with a code instead of sent.
  app.addHook('onSend', async (request, reply, payload) => {
    const max = opts.engine.services.limits.responseBytes;
    // A string of n UTF-16 units is at most 3n UTF-8 bytes: nearly every
    // answer is let through without counting them.
    if (typeof payload === 'string' && payload.length * 3 <= max) return payload;
    const size =
      typeof payload === 'string'
        ? Buffer.byteLength(payload)
        : Buffer.isBuffer(payload)
          ? payload.length
          : 0;
    if (size <= max) return payload;
    request.log.warn({ bytes: size, limitBytes: max }, 'answer over the response limit');
    const m = toHttpError(
      new KeepGraphError(
        'response_too_large',
        `the answer is larger than the limit of ${max} bytes (limits.responseBytes): ask for less, e.g. a smaller page`,
        { limitBytes: max },
      ),
      BODY_LIMIT_BYTES,
    );
    void reply.status(m.status).header('content-type', 'application/json; charset=utf-8');
    return JSON.stringify(m.body);
  });

  const version = opts.version ?? KEEPGRAPH_VERSION;
  // Every answered request, by route pattern (as in the log lines: never the URL).
  const metrics = opts.metrics ?? createServerMetrics();
  metrics.attach({
    engine: opts.engine,
    version,
    ...(opts.queues && { queues: opts.queues.metrics }),
    ...(opts.queues?.bullQueues && { bullQueues: opts.queues.bullQueues }),
  });
  app.addHook('onResponse', async (request, reply) => {
    metrics.observeRequest(
      request.routeOptions.url ?? '(unmatched)',
      request.method,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
  });

  // Before authentication: its 401 and 429 answers must carry the CORS
  // headers too, or a page cannot read them (nor their Retry-After).
  if (opts.corsOrigins && opts.corsOrigins.length > 0)
    void app.register(cors, {
      origin: [...opts.corsOrigins],
      methods: CORS_METHODS,
      exposedHeaders: CORS_EXPOSED_HEADERS,
      // A browser asks before each PATCH, PUT, DELETE or JSON POST; ten minutes spares most of those round trips.
      maxAge: 600,
    });

  // The caller never comes from the payload: it is the request's credential.
  const auth = opts.auth ?? {};
  let callerOf: (request: FastifyRequest) => Caller;
  if ('trustedCaller' in auth) {
    const trusted = auth.trustedCaller;
    callerOf = (request) => ({ ...trusted, requestId: request.id });
  } else {
    void app.register(authenticationPlugin, { engine: opts.engine, ...auth });
    callerOf = callerOfRequest;
  }
  const routeOptions: RouteOptions = { engine: opts.engine, callerOf };

  void app.register(openApiPlugin, {
    version,
    bodyLimit: BODY_LIMIT_BYTES,
  });

  void app.register(
    async (v1) => {
      registerUseCaseRoutes(v1, USE_CASE_ROUTES, routeOptions);
      await v1.register(queueRoutes, {
        ...routeOptions,
        ...(opts.queues && { queueMetrics: opts.queues.metrics }),
      });
    },
    { prefix: '/v1' },
  );

  if (opts.queues?.bullQueues) {
    void app.register(bullBoardPlugin, {
      queues: opts.queues.bullQueues,
      bodyLimit: BODY_LIMIT_BYTES,
      callerOf,
    });
  }

  void app.register(mcpRoutes, routeOptions);
  void app.register(uiRoutes);
  void app.register(metricsRoutes, { callerOf, metrics });
  void app.register(healthRoutes, { engine: opts.engine, version });
  return app;
}
