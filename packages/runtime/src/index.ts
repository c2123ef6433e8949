// Public surface of @keepgraph/runtime: the composition root every process
// opens (the HTTP server, the CLI's local commands, the workers): the
// configuration read from the environment, the store selected by it, the
// embedder and the engine. Re-exports only.
export {
  CONFIG_ENV,
  STORE_KINDS,
  loadServerConfig,
  redisConnection,
  type StoreSelection,
  type ServerConfig,
  type ServerConfigOverrides,
  type StoreKind,
} from './config.ts';
export {
  AUDIT_SECRET_FILE,
  SQLITE_FILE_NAME,
  openEmbeddedRuntime,
  type EmbeddedRuntime,
  type EmbeddedRuntimeOptions,
} from './runtime.ts';
export {
  STORE_FACTORIES,
  storeFactory,
  storeSelection,
  type StoreFactory,
} from './store-factories.ts';
export { OPERATOR_KEY_FILE, ensureOperatorKey, readOperatorKey } from './operator-key.ts';
export { BACKUP_FORMATS, backupStore, type BackupFormat, type BackupResult } from './backup.ts';
export { restoreStore, type RestoreRequest, type RestoreResult } from './restore.ts';
