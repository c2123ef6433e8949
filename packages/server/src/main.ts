// Process entry point of the server: open the embedded runtime, build the
// app over its engine, listen, and close everything on SIGINT/SIGTERM. The
// CLI's `keepgraph start` calls startServer with a validated config.
import type { FastifyInstance } from 'fastify';
import type { Extractor } from '@keepgraph/core/ports';
import { buildApp } from './app.ts';
import { storeSelection, type ServerConfig } from '@keepgraph/runtime';
import { ensureOperatorKey, openEmbeddedRuntime, type EmbeddedRuntime } from '@keepgraph/runtime';
import { jwtVerifier, type JwtOptions } from './auth/jwt.ts';
import { createServerMetrics } from './metrics/server-metrics.ts';

/** A listening server and how to stop it. */
export interface RunningServer {
  app: FastifyInstance;
  runtime: EmbeddedRuntime;
  /** The base URL the server listens on, e.g. http://127.0.0.1:7411. */
  url: string;
  /** Stop listening, then close the runtime (background jobs, store). Idempotent. */
  close(): Promise<void>;
  /**
   * The operator key made on this start because the store had no key (also
   * in DATA_DIR/operator.key); absent otherwise. Shown once, never logged.
   */
  operatorKey?: { key: string; id: string; path: string };
}

/**
 * Start the KeepGraph server. With `handleSignals` (the default), SIGINT and
 * SIGTERM close the app and the runtime, then let the process exit.
 */
export async function startServer(
  config: ServerConfig,
  opts: { handleSignals?: boolean; logger?: boolean; extractor?: Extractor } = {},
): Promise<RunningServer> {
  // The app (and its logger) exists only after the runtime is open.
  const built: { app?: FastifyInstance } = {};
  // Made first: the engine reports its work to them from its first use-case.
  const metrics = createServerMetrics();
  // Said once the app's logger exists (a data dir made private at open).
  const notices: string[] = [];
  const runtime = await openEmbeddedRuntime({
    dataDir: config.dataDir,
    ...(config.auditSecret !== undefined && { auditSecret: config.auditSecret }),
    store: storeSelection(config),
    policyPath: config.policyPath,
    modelId: config.modelId,
    ...(config.modelsDir !== undefined && { modelsDir: config.modelsDir }),
    sweepIntervalMs: config.sweepIntervalMs === 0 ? null : config.sweepIntervalMs,
    // Server mode (Redis configured): `keepgraph worker` processes run the
    // jobs; this process only relays its outbox to them.
    ...(config.redisUrl !== undefined && {
      queue: {
        redisUrl: config.redisUrl,
        prefix: config.redisPrefix,
        log: (line: string) => built.app?.log.warn(`closing ${line}`),
      },
    }),
    ...(opts.extractor ? { extractor: opts.extractor } : {}),
    onSweepError: (e) => built.app?.log.error({ err: e }, 'background job failed'),
    observe: metrics.observe,
    notice: (m) => notices.push(m),
  });
  let operatorKey: RunningServer['operatorKey'];
  try {
    operatorKey = (await ensureOperatorKey(runtime.engine, runtime.dataDir)) ?? undefined;
  } catch (e) {
    await runtime.close().catch(() => {});
    throw e;
  }
  const jwt = jwtOptions(config);
  const app = (built.app = buildApp({
    engine: runtime.engine,
    auth: {
      ...(jwt && { jwt: jwtVerifier(jwt) }),
      rateLimitPerMinute: config.rateLimitPerMinute,
      authFailuresPerMinute: config.authFailuresPerMinute,
      ...(config.metricsToken !== undefined && { metricsToken: config.metricsToken }),
    },
    metrics,
    ...(config.corsOrigins && { corsOrigins: config.corsOrigins }),
    logger: opts.logger ?? true,
    ...(runtime.jobs && { queues: runtime.jobs }),
  }));
  for (const m of notices) {
    // Without a logger (--no-log) it still reaches the operator.
    if (opts.logger === false) console.warn(`keepgraph: ${m}`);
    else app.log.warn({ dataDir: runtime.dataDir }, m);
  }
  // The app does not own the runtime in tests; here it does, so closing the
  // app (signal, error, or caller) closes the relay and the queues (each
  // within a deadline, so a Redis outage cannot hold the shutdown), the
  // background and the store too.
  app.addHook('onClose', () => runtime.close());

  let url: string;
  try {
    url = await app.listen({ host: config.host, port: config.port });
  } catch (e) {
    await app.close().catch(() => {});
    throw e;
  }
  app.log.info(
    {
      url,
      dataDir: runtime.dataDir,
      store: config.store,
      auth: jwt ? 'API keys and JWTs' : 'API keys',
      model: runtime.engine.services.serving.model,
    },
    `KeepGraph listening on ${url} (docs at ${url}/docs)`,
  );

  let closing: Promise<void> | null = null;
  const close = () => (closing ??= app.close().then(() => {}));

  if (opts.handleSignals ?? true) {
    const onSignal = (signal: NodeJS.Signals) => {
      app.log.info({ signal }, 'shutting down');
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      close().then(
        () => process.exit(0),
        (e: unknown) => {
          app.log.error({ err: e }, 'error while shutting down');
          process.exit(1);
        },
      );
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  return { app, runtime, url, close, ...(operatorKey && { operatorKey }) };
}

/** The JWT settings of a config, or null when JWTs are not configured. */
function jwtOptions(config: ServerConfig): JwtOptions | null {
  const key =
    config.jwtSecret !== undefined
      ? { secret: config.jwtSecret }
      : config.jwksUrl !== undefined
        ? { jwksUrl: config.jwksUrl }
        : null;
  if (!key || !config.jwtIssuer || !config.jwtAudience) return null;
  return {
    ...key,
    issuer: config.jwtIssuer,
    audience: config.jwtAudience,
    roleClaim: config.jwtRoleClaim,
    ownersClaim: config.jwtOwnersClaim,
  };
}
