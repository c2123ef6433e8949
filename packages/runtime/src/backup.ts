// `keepgraph backup`: the whole store into one file, while servers go on
// serving it. Two formats:
// - sqlite (the SQLite store's default): SQLite's online backup API copies
//   the database as of one commit (SqliteMemoryStore.backupTo), checked and
//   sealed with the backup's header (store-sqlite's sqlite-backup.ts);
// - jsonl (Neo4j's, and the SQLite store's on request): the logical backup
//   of core's backup-format.ts, read through the store port (on SQLite from
//   an online copy, so it too is one snapshot).
// The file is written beside its final name and renamed when whole (mode
// 0600: it holds every memory and the audit secret); the store's audit log
// records that a backup was taken, by whom, of how much.
import { chmod, mkdtemp, open, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { KeepGraphError, auditEvent, type Caller } from '@keepgraph/core';
import {
  backupLines,
  storeBackupSource,
  type BackupCounts,
  type BackupHeader,
} from '@keepgraph/core/backup';
import { type MemoryStore } from '@keepgraph/core/ports';
import { SqliteMemoryStore, createSqliteStore, sealSqliteBackup } from '@keepgraph/store-sqlite';
import type { EmbeddedRuntime } from './runtime.ts';

export const BACKUP_FORMATS = ['sqlite', 'jsonl'] as const;
export type BackupFormat = (typeof BACKUP_FORMATS)[number];

export interface BackupResult {
  file: string;
  /** The backup carries the audit secret. */
  auditSecret: boolean;
  format: BackupFormat;
  /** The store backed up: 'sqlite' or 'neo4j'. */
  store: string;
  createdAt: string;
  bytes: number;
  memories: number;
  owners: number;
  apiKeys: number;
  auditEvents: number;
  /** The audit event the backup's memories reflect (null: an empty log). */
  snapshotSeq: number | null;
  ms: number;
}

/** The header's fields the runtime knows (the store adds its snapshot). */
function headerBase(
  rt: EmbeddedRuntime,
  createdAt: string,
  withSecret: boolean,
): Omit<BackupHeader, 'snapshot'> {
  const { embedder } = rt.engine.deps;
  return {
    format: 'keepgraph-backup',
    version: 1,
    store: rt.store.kind,
    createdAt,
    dimensions: embedder.dimensions,
    embeddingModel: embedder.modelId,
    auditSecret: withSecret ? rt.auditSecret : null,
  };
}

/** Write lines to `path` (a new file, mode 0600), synced to disk before it resolves. */
export async function writeLines(path: string, lines: AsyncIterable<string>): Promise<void> {
  const handle = await open(path, 'wx', 0o600);
  try {
    // A chunk at a time (writeFile writes it whole, from where the last ended): memory stays bounded.
    let chunk: string[] = [];
    let size = 0;
    for await (const line of lines) {
      chunk.push(line, '\n');
      size += line.length + 1;
      if (size >= 1 << 20) {
        await handle.writeFile(chunk.join(''));
        chunk = [];
        size = 0;
      }
    }
    if (chunk.length > 0) await handle.writeFile(chunk.join(''));
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A SQLite database file as a store (a backup copy, or one being rebuilt). */
export async function openSqliteStore(
  path: string,
  dimensions: number,
): Promise<SqliteMemoryStore> {
  const store = createSqliteStore({ path });
  try {
    await store.init({ dimensions });
  } catch (e) {
    await store.close().catch(() => {});
    throw e;
  }
  return store;
}

async function jsonlBackup(
  rt: EmbeddedRuntime,
  from: MemoryStore,
  tmp: string,
  base: Omit<BackupHeader, 'snapshot'>,
): Promise<{ counts: BackupCounts; header: BackupHeader }> {
  const source = await storeBackupSource(from, {
    createdAt: base.createdAt,
    embeddingModel: base.embeddingModel,
    dimensions: base.dimensions,
    auditSecret: base.auditSecret,
  });
  // The header names the store backed up, not the snapshot copy it was read from.
  source.header.store = base.store;
  const counts: BackupCounts = { memories: 0, owners: 0, apiKeys: 0, auditEvents: 0 };
  await writeLines(tmp, backupLines(source, counts));
  return { counts, header: source.header };
}

/**
 * Back the runtime's store up into `out` (replaced atomically if it
 * exists). `format` defaults to sqlite on the SQLite store, jsonl on Neo4j.
 *
 * @throws KeepGraphError `invalid_input` for the sqlite format on Neo4j or
 *   a directory that does not exist.
 */
export async function backupStore(
  rt: EmbeddedRuntime,
  caller: Caller,
  opts: {
    out: string;
    format?: BackupFormat;
    /**
     * Carry the runtime's audit secret (default true). Off when it is not
     * the installation's: made just now for a data dir that had none,
     * while the servers hash with another.
     */
    auditSecret?: boolean;
  },
): Promise<BackupResult> {
  const t0 = performance.now();
  const createdAt = rt.engine.deps.clock.now().toISOString();
  const sqlite = rt.store instanceof SqliteMemoryStore ? rt.store : null;
  const format: BackupFormat = opts.format ?? (sqlite ? 'sqlite' : 'jsonl');
  if (format === 'sqlite' && !sqlite)
    throw new KeepGraphError(
      'invalid_input',
      `the sqlite format backs up the SQLite store; this store is ${rt.store.kind}: use --format jsonl`,
    );
  const dir = dirname(opts.out);
  if (!(await stat(dir).catch(() => null))?.isDirectory())
    throw new KeepGraphError('invalid_input', `no directory ${dir} to write the backup in`);
  // Beside the final name, so the rename that publishes it is atomic.
  const tmp = join(dir, `.${basename(opts.out)}.partial-${process.pid}`);
  const base = headerBase(rt, createdAt, opts.auditSecret ?? true);
  let scratch: string | null = null;
  try {
    let header: BackupHeader;
    let counts: BackupCounts;
    if (sqlite && format === 'sqlite') {
      await sqlite.backupTo(tmp);
      const sealed = sealSqliteBackup(tmp, base);
      header = sealed.header;
      counts = sealed.counts;
      await chmod(tmp, 0o600);
    } else if (sqlite) {
      // One snapshot to read from: an online copy, read through the store port.
      scratch = await mkdtemp(join(tmpdir(), 'keepgraph-backup-'));
      const copy = join(scratch, 'snapshot.db');
      await sqlite.backupTo(copy);
      const store = await openSqliteStore(copy, base.dimensions);
      try {
        ({ header, counts } = await jsonlBackup(rt, store, tmp, base));
      } finally {
        await store.close();
      }
    } else {
      ({ header, counts } = await jsonlBackup(rt, rt.store, tmp, base));
    }
    await rename(tmp, opts.out);
    const result: BackupResult = {
      file: opts.out,
      auditSecret: base.auditSecret !== null,
      format,
      store: rt.store.kind,
      createdAt,
      bytes: (await stat(opts.out)).size,
      memories: counts.memories,
      owners: counts.owners,
      apiKeys: counts.apiKeys,
      auditEvents: counts.auditEvents,
      snapshotSeq: header.snapshot?.seq ?? null,
      ms: Math.round(performance.now() - t0),
    };
    // Who took a copy of everything, and of how much (never where: a path may name a person).
    await rt.store.appendAudit([
      auditEvent(caller, 'backup', rt.engine.deps.clock.now().toISOString(), null, {
        details: {
          format,
          createdAt,
          memories: result.memories,
          owners: result.owners,
          apiKeys: result.apiKeys,
          auditEvents: result.auditEvents,
          snapshotSeq: result.snapshotSeq,
        },
      }),
    ]);
    return result;
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  } finally {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}
