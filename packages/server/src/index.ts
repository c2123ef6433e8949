// Public surface of @keepgraph/server: configuration, the embedded runtime,
// the HTTP app and the process entry point. Re-exports only.
export {
  CONFIG_ENV,
  STORE_KINDS,
  loadServerConfig,
  redisConnection,
  storeSelection,
  type StoreSelection,
  type ServerConfig,
  type ServerConfigOverrides,
  type StoreKind,
} from './config.ts';
export {
  SQLITE_FILE_NAME,
  openEmbeddedRuntime,
  type EmbeddedRuntime,
  type EmbeddedRuntimeOptions,
} from './runtime.ts';
export { BODY_LIMIT_BYTES, buildApp, type AppOptions } from './app.ts';
export { HTTP_STATUS, httpStatusOf } from './http-status.ts';
export { BULL_BOARD_PATH } from './plugins/bull-board.ts';
export { type QueueRouteOptions } from './routes/operate.ts';
export { startServer, type RunningServer } from './main.ts';
