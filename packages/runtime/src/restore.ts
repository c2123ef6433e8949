// `keepgraph restore`: a backup file (either format, found by its first
// bytes) back into the configured store. The whole file is checked before
// anything is written; a SQLite store is rebuilt in a file beside
// keepgraph.db and swapped in by a rename, so a failed restore leaves the
// data dir as it was. Rules (core's backup/restore.ts has the why):
// - the store must be empty (no memory, audit event or API key), unless
//   `force`: then its memories are replaced, its audit log and keys stay,
//   and every deletion its log records after the backup is applied again;
// - `deletionsFrom`, another backup (e.g. the newest of a lost store),
//   adds the deletions its audit log records;
// - a SQLite store must not be open in another process (stop servers and
//   workers first); a Neo4j store cannot tell, so that is the operator's to
//   make sure of.
import { createReadStream, existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rename, rm, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { KeepGraphError, newAuditSecret, type AuditEvent, type Caller } from '@keepgraph/core';
import {
  finishCopiedRestore,
  isStoreEmpty,
  readBackupLines,
  restoreBackup,
  storeBackupSource,
  type BackupHeader,
  type BackupSource,
  type RestoreReport,
} from '@keepgraph/core/backup';
import { databaseInUse, isSqliteFile, openSqliteBackup } from '@keepgraph/store-sqlite';
import { openSqliteStore } from './backup.ts';
import type { StoreSelection } from './config.ts';
import { DATA_DIR_MODE, DATA_FILE_MODE, prepareDataDir } from './data-dir.ts';
import {
  AUDIT_SECRET_FILE,
  SQLITE_FILE_NAME,
  openEmbeddedRuntime,
  type EmbeddedRuntime,
  type EmbeddedRuntimeOptions,
} from './runtime.ts';

/** What `restoreStore` needs: where to restore, and how the runtime opens there. */
export interface RestoreRequest {
  /** The backup file. */
  from: string;
  /** Replace a store that holds data (its memories; its audit log and keys stay). */
  force: boolean;
  /** Another backup whose audit log's deletions are applied too. */
  deletionsFrom?: string;
  dataDir: string;
  store: StoreSelection;
  /** The installation's configured secret (KEEPGRAPH_AUDIT_SECRET), if any. */
  auditSecret?: string;
  /** The runtime's other options (policy, model, models dir). */
  runtime?: Pick<
    EmbeddedRuntimeOptions,
    'policyPath' | 'modelId' | 'modelsDir' | 'embedder' | 'notice'
  >;
  caller: Caller;
  onProgress?: (p: { owners: number; memories: number }) => void;
}

export interface RestoreResult extends RestoreReport {
  file: string;
  format: 'sqlite' | 'jsonl';
  /** Things the operator should know (an audit secret that differs, ...). */
  warnings: string[];
  ms: number;
}

/** A backup file opened for reading: its source, and what to remove afterwards. */
interface OpenedBackup {
  format: 'sqlite' | 'jsonl';
  header: BackupHeader;
  /** A JSONL file as a source (already checked whole). */
  jsonl: BackupSource | null;
  /** A SQLite backup: a checked copy, without its header table, ready to open as a store. */
  sqliteCopy: string | null;
  cleanup(): Promise<void>;
}

async function* fileLines(path: string): AsyncGenerator<string> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  try {
    yield* lines;
  } finally {
    lines.close();
  }
}

/**
 * Open and check a backup file. A SQLite backup is copied first (to
 * `scratchDir`), since opening a database may write to it and the backup
 * must stay as it is.
 */
async function openBackup(path: string, scratchDir: string): Promise<OpenedBackup> {
  if (!existsSync(path)) throw new KeepGraphError('not_found', `no backup file at ${path}`);
  if (isSqliteFile(path)) {
    await mkdir(scratchDir, { recursive: true, mode: DATA_DIR_MODE });
    const copy = join(scratchDir, `.keepgraph-restore-${process.pid}-${Date.now()}.db`);
    const cleanup = () =>
      Promise.all(['', '-wal', '-shm'].map((s) => rm(copy + s, { force: true }))).then(() => {});
    try {
      await copyFile(path, copy);
      // copyFile gives the copy the backup's mode, and the copy becomes the store.
      await chmod(copy, DATA_FILE_MODE);
      const { header } = openSqliteBackup(copy, { drop: true });
      return { format: 'sqlite', header, jsonl: null, sqliteCopy: copy, cleanup };
    } catch (e) {
      await cleanup();
      throw e;
    }
  }
  const source = await readBackupLines(() => fileLines(path));
  return {
    format: 'jsonl',
    header: source.header,
    jsonl: source,
    sqliteCopy: null,
    cleanup: () => Promise.resolve(),
  };
}

/** The backup as a source: the JSONL file, or the SQLite copy opened as a store. */
async function sourceOf(b: OpenedBackup, closers: (() => Promise<void>)[]): Promise<BackupSource> {
  if (b.jsonl) return b.jsonl;
  const store = await openSqliteStore(b.sqliteCopy!, b.header.dimensions);
  closers.push(() => store.close());
  const source = await storeBackupSource(store, {
    createdAt: b.header.createdAt,
    embeddingModel: b.header.embeddingModel,
    dimensions: b.header.dimensions,
    auditSecret: b.header.auditSecret,
  });
  // The copy's own snapshot is the backup's (nothing was written to it since).
  return { ...source, header: b.header };
}

/** The audit log of another backup, for its deletions. */
async function deletionsOf(
  b: OpenedBackup,
  closers: (() => Promise<void>)[],
): Promise<() => AsyncIterable<AuditEvent>> {
  const source = await sourceOf(b, closers);
  return () => source.auditEvents();
}

async function removeDb(path: string): Promise<void> {
  for (const s of ['-wal', '-shm', '']) await rm(path + s, { force: true });
}

/**
 * Restore the backup at `req.from` into the configured store.
 *
 * @throws KeepGraphError `not_found` (no such file), `invalid_input` (not a
 *   backup, another version, damaged, truncated, vectors of another size),
 *   `conflict` (the store holds data and `force` is off: details.reason
 *   `store_not_empty`; or a SQLite store open in another process:
 *   details.reason `store_in_use`).
 */
export async function restoreStore(req: RestoreRequest): Promise<RestoreResult> {
  const t0 = performance.now();
  const warnings: string[] = [];
  const sqliteTarget = req.store.kind === 'sqlite';
  const dbPath = sqliteTarget
    ? (req.store.kind === 'sqlite' && req.store.path) || join(req.dataDir, SQLITE_FILE_NAME)
    : null;
  // Private before the backup's copy lands in it (the runtime opened below would tighten it only then).
  if (sqliteTarget)
    await prepareDataDir(req.dataDir, { create: true, notice: req.runtime?.notice });
  const scratch = sqliteTarget ? req.dataDir : await mkdtemp(join(tmpdir(), 'keepgraph-restore-'));
  const opened: OpenedBackup[] = [];
  const closers: (() => Promise<void>)[] = [];
  const made: string[] = [];
  try {
    const backup = await openBackup(req.from, scratch);
    opened.push(backup);
    const extra = req.deletionsFrom ? await openBackup(req.deletionsFrom, scratch) : null;
    if (extra) opened.push(extra);
    const h = backup.header;

    // The installation's secret, or the backup's for a store that starts from it.
    const configured = req.auditSecret;
    const secretFile = join(req.dataDir, AUDIT_SECRET_FILE);
    const current = existsSync(secretFile) ? (await readFile(secretFile, 'utf8')).trim() : null;

    const open = (store: StoreSelection, auditSecret: string): Promise<EmbeddedRuntime> =>
      openEmbeddedRuntime({
        dataDir: req.dataDir,
        store,
        auditSecret,
        sweepIntervalMs: null,
        lazyModel: true,
        ...req.runtime,
      });

    let report: RestoreReport;
    /** The secret and model the restored store was opened with. */
    let used = { secret: '', model: h.embeddingModel };
    const note = (rt: EmbeddedRuntime) =>
      (used = { secret: rt.auditSecret, model: rt.engine.deps.embedder.modelId });
    if (dbPath !== null) {
      if (databaseInUse(dbPath))
        throw new KeepGraphError(
          'conflict',
          `${dbPath} is open in another process (a keepgraph start, worker or command): stop it before restoring`,
          { reason: 'store_in_use' },
        );
      let empty = true;
      if (existsSync(dbPath)) {
        const probe = await openSqliteStore(dbPath, h.dimensions);
        try {
          empty = await isStoreEmpty(probe);
        } finally {
          await probe.close();
        }
      }
      if (!empty && !req.force)
        throw new KeepGraphError(
          'conflict',
          `the store in ${req.dataDir} is not empty (memories, audit events or API keys): restore into an empty data dir, or pass --force to replace its memories`,
          { reason: 'store_not_empty' },
        );
      // Everything happens in `work`, beside keepgraph.db, renamed over it at the end.
      const work = join(req.dataDir, `.keepgraph.db.restoring-${process.pid}`);
      await removeDb(work);
      made.push(work);
      const deletions = extra ? await deletionsOf(extra, closers) : undefined;
      // A store that starts from the backup takes its secret, so the log's keyed hashes still match.
      const secret =
        configured ?? (empty ? (h.auditSecret ?? current) : current) ?? newAuditSecret();
      if (empty) {
        if (backup.sqliteCopy) await rename(backup.sqliteCopy, work);
        const rt = await open({ kind: 'sqlite', path: work }, secret);
        note(rt);
        try {
          report = backup.sqliteCopy
            ? await finishCopiedRestore(rt.engine.deps, req.caller, h, {
                ...(deletions && { deletions }),
              })
            : await restoreBackup(rt.engine.deps, req.caller, backup.jsonl!, {
                mode: 'empty',
                ...(deletions && { deletions }),
                ...(req.onProgress && { onProgress: req.onProgress }),
              });
        } finally {
          await rt.close();
        }
      } else {
        // Replace: start from an online copy of the current database.
        const live = await openSqliteStore(dbPath, h.dimensions);
        try {
          await live.backupTo(work);
        } finally {
          await live.close();
        }
        const source = await sourceOf(backup, closers);
        const rt = await open({ kind: 'sqlite', path: work }, secret);
        note(rt);
        try {
          report = await restoreBackup(rt.engine.deps, req.caller, source, {
            mode: 'replace',
            ...(deletions && { deletions }),
            ...(req.onProgress && { onProgress: req.onProgress }),
          });
        } finally {
          await rt.close();
        }
      }
      if (!report.audit.ok)
        throw new KeepGraphError(
          'internal',
          `the restored audit chain does not verify (at seq ${report.audit.brokenAt}, ${report.audit.problem}); the data dir is unchanged`,
        );
      for (const c of closers.splice(0)) await c();
      // The swap: nothing of the old database may linger beside the new one.
      if (databaseInUse(dbPath))
        throw new KeepGraphError(
          'conflict',
          `${dbPath} was opened by another process during the restore: stop it and restore again; the data dir is unchanged`,
          { reason: 'store_in_use' },
        );
      await removeDb(dbPath);
      await rename(work, dbPath);
      made.length = 0;
      if (!configured && secret !== current) {
        await writeFile(secretFile, `${secret}\n`, { mode: 0o600 });
        await chmod(secretFile, 0o600);
      }
    } else {
      // Neo4j: restored in place; the whole file was checked before this point.
      // Without a secret of its own, the installation takes the backup's (the
      // restored log's keyed hashes still match), written down once restored.
      const known = configured ?? current;
      const secret = known ?? h.auditSecret;
      const rt = await openEmbeddedRuntime({
        dataDir: req.dataDir,
        store: req.store,
        ...(secret !== null && { auditSecret: secret }),
        sweepIntervalMs: null,
        lazyModel: true,
        ...req.runtime,
      });
      note(rt);
      try {
        const empty = await isStoreEmpty(rt.store);
        if (!empty && !req.force)
          throw new KeepGraphError(
            'conflict',
            'the Neo4j database is not empty (memories, audit events or API keys): restore into an empty database, or pass --force to replace its memories',
            { reason: 'store_not_empty' },
          );
        const deletions = extra ? await deletionsOf(extra, closers) : undefined;
        const source = await sourceOf(backup, closers);
        report = await restoreBackup(rt.engine.deps, req.caller, source, {
          mode: empty ? 'empty' : 'replace',
          ...(deletions && { deletions }),
          ...(req.onProgress && { onProgress: req.onProgress }),
        });
      } finally {
        await rt.close();
      }
      if (known === null && h.auditSecret !== null) {
        await prepareDataDir(req.dataDir, { create: true, notice: req.runtime?.notice });
        await writeFile(secretFile, `${h.auditSecret}\n`, { flag: 'wx', mode: DATA_FILE_MODE });
      }
      if (!report.audit.ok)
        throw new KeepGraphError(
          'internal',
          `the restored audit chain does not verify (at seq ${report.audit.brokenAt}, ${report.audit.problem})`,
        );
    }
    if (report.mode === 'empty' && h.auditSecret !== null && used.secret !== h.auditSecret)
      warnings.push(
        "this installation's audit secret (KEEPGRAPH_AUDIT_SECRET or audit.secret) is not the backup's: keyed hashes in the restored audit log (keys, session ids) were made with the backup's",
      );
    if (used.model !== h.embeddingModel)
      warnings.push(
        `the backup's vectors are of model ${h.embeddingModel}, this store embeds with ${used.model}: re-embed (stale embeddings are found by model)`,
      );
    return {
      ...report,
      file: req.from,
      format: backup.format,
      warnings,
      ms: Math.round(performance.now() - t0),
    };
  } finally {
    for (const c of closers) await c().catch(() => {});
    for (const b of opened) await b.cleanup();
    for (const m of made) await removeDb(m);
    if (!sqliteTarget) await rm(scratch, { recursive: true, force: true });
  }
}
