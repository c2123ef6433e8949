// Public surface of @keepgraph/server: the HTTP app and the process entry
// point (configuration and the runtime are @keepgraph/runtime's). Re-exports only.
export {
  BODY_LIMIT_BYTES,
  USE_CASE_ROUTES,
  buildApp,
  type AppAuth,
  type AppOptions,
} from './app.ts';
export { jwtPrincipal, jwtVerifier, type JwtOptions, type JwtVerifier } from './auth/jwt.ts';
export { HTTP_STATUS, httpStatusOf } from './http-status.ts';
export { METRICS_PATH } from './auth/authenticate.ts';
export {
  KPI_CACHE_MS,
  METRIC_PREFIX,
  createServerMetrics,
  type MetricsSources,
  type ServerMetrics,
} from './metrics/server-metrics.ts';
export { BULL_BOARD_PATH } from './plugins/bull-board.ts';
export { type QueueRouteOptions } from './routes/operate.ts';
export { startServer, type RunningServer } from './main.ts';
