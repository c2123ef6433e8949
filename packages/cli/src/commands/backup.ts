// `keepgraph backup` and `keepgraph restore`: the whole store into one file
// while servers keep serving it, and that file back into an empty store (or,
// with --force, over one). They work on the store below the engine, as its
// operator, like start and worker (NOT_USE_CASE_COMMANDS): the runtime's
// backup.ts and restore.ts do the work, this only reads flags and reports.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { Option } from 'commander';
import type { Caller } from '@keepgraph/core';
import { globalOptions, userPath, withRuntime } from '../context.ts';
import type { Io } from '../io.ts';

const BACKUP_HELP = `
Formats:
  sqlite  (default on the SQLite store) SQLite's online backup API copies the
          database as of one commit while keepgraph start keeps serving
          writes on the same data dir; the copy is integrity-checked, its
          full-text index checked against its rows, and sealed with a header
          table (format keepgraph-backup, version 1, store, time, the audit
          event it reflects). One file, the whole store: memories with their
          full-text rows, vectors and edges, sessions, read log, outbox, API
          keys (hashes) and the audit log.
  jsonl   (default on Neo4j; --format jsonl on SQLite) one JSON record a line:
          a header line {"type":"header","format":"keepgraph-backup",
          "version":1,"store":...,"createdAt":...,"snapshot":{seq,hash}},
          then every memory of every owner with all its fields (id, origin,
          source origins, authority, expiry, derivedFrom, supersession),
          its vector (base64 float32) and reflection state, the API keys as
          stored, the audit log, and an end line with the counts and the
          SHA-256 of every line before it. On Neo4j it is read while the
          store serves, owner by owner: not one snapshot, so a restore
          applies again every deletion logged after the header's snapshot.

The file is written beside FILE and renamed into place when whole (an
existing FILE is replaced), mode 0600: it holds every memory and the
installation's audit secret, so keep it as you keep the data dir.
operator.key is not carried (a credential; the store keeps its hash), nor
are the in-memory vector indexes (rebuilt from the vectors). The store's
audit log records the backup (type backup: who, when, how much).`;

const RESTORE_HELP = `
The backup is checked whole before anything is written (a missing file,
another format or version, a damaged, edited or truncated file: exit 1,
nothing written). The store must be empty: no memory, audit event or API
key. A SQLite store is rebuilt in a file beside keepgraph.db and renamed
over it at the end, so a failed restore leaves the data dir as it was; it
refuses while another process (a server, a worker) has the database open.

Into an empty store the backup comes back whole: memories with their ids,
origins, lineage (derivedFrom), supersession, expiry and vectors, the API
keys, and the audit log (sealed again in order: the same hashes, the
chain verifies), then one restore event.

--force replaces the memories of a store that holds data with the
backup's; its audit log (append-only), its API keys (a key revoked since
the backup stays revoked) and its session buffers stay. A backup must not bring back what
was forgotten after it was taken: every memory that a deletion in the
store's audit log (forget, expiry, eviction, source revocation, owner
deletion, correction, session forget) names after the backup's snapshot
is deleted again, with the same cascade, and audited. Writes made after
the backup are gone: that is what restoring a backup means.
--deletions-from FILE adds the deletions of another backup's audit log:
restoring an older backup of a lost store, name its newest backup here.

Exit codes: 0 restored (the audit chain verifies), 1 refused or failed
(a non-empty store without --force, a store in use, a bad file).`;

interface BackupSummary {
  file: string;
  format: string;
  store: string;
  memories: number;
  owners: number;
  apiKeys: number;
  auditEvents: number;
  bytes: number;
  snapshotSeq: number | null;
  ms: number;
}

function formatBackup(r: BackupSummary): string {
  return (
    `backed up ${r.memories} memories of ${r.owners} owners, ${r.apiKeys} API keys and ` +
    `${r.auditEvents} audit events from ${r.store} to ${r.file} (${r.format}, ${r.bytes} bytes, ` +
    `snapshot at audit event ${r.snapshotSeq ?? 'none'}) in ${r.ms} ms`
  );
}

export function registerBackup(program: Command, io: Io): void {
  program
    .command('backup')
    .description('back the whole store up into one file while it serves (operator)')
    .requiredOption('--out <file>', 'the backup file to write')
    .addOption(
      new Option('--format <format>', 'sqlite (SQLite store only) or jsonl').choices([
        'sqlite',
        'jsonl',
      ]),
    )
    .option('--json', 'print the summary as JSON')
    .addHelpText('after', BACKUP_HELP)
    .action(
      async (f: { out: string; format?: 'sqlite' | 'jsonl'; json?: boolean }, cmd: Command) => {
        const { AUDIT_SECRET_FILE, backupStore, loadServerConfig } =
          await import('@keepgraph/runtime');
        const g = { ...globalOptions(cmd, { operatorByDefault: true }), role: 'operator' as const };
        // The installation's secret is configured, or in the data dir before the
        // runtime opens (which makes one up for a data dir without one).
        const ownSecret =
          loadServerConfig(process.env, { dataDir: g.dataDir }).auditSecret !== undefined ||
          existsSync(join(g.dataDir, AUDIT_SECRET_FILE));
        await withRuntime(g, async ({ runtime, caller }) => {
          const r = await backupStore(runtime, caller, {
            out: userPath(f.out),
            ...(f.format && { format: f.format }),
            auditSecret: ownSecret,
          });
          if (!r.auditSecret)
            io.err(
              "warning: the backup carries no audit secret (no KEEPGRAPH_AUDIT_SECRET, no audit.secret in the data dir): give the restored installation the servers' secret, or the restored log's keyed hashes will not match new ones",
            );
          io.out(f.json ? JSON.stringify(r, null, 2) : formatBackup(r));
        });
      },
    );
}

export function registerRestore(program: Command, io: Io): void {
  program
    .command('restore')
    .description('restore a backup into an empty store, or over one with --force (operator)')
    .requiredOption('--from <file>', 'the backup file (either format)')
    .option('--force', "replace a non-empty store's memories (its audit log and keys stay)")
    .option('--deletions-from <file>', "another backup whose audit log's deletions to apply too")
    .option('--json', 'print the report as JSON')
    .addHelpText('after', RESTORE_HELP)
    .action(
      async (
        f: { from: string; force?: boolean; deletionsFrom?: string; json?: boolean },
        cmd: Command,
      ) => {
        const { loadServerConfig, restoreStore, storeSelection } =
          await import('@keepgraph/runtime');
        const g = globalOptions(cmd, { operatorByDefault: true });
        const config = loadServerConfig(process.env, { dataDir: g.dataDir });
        const caller: Caller = { role: 'operator', owners: 'all', principal: g.principal };
        const r = await restoreStore({
          from: userPath(f.from),
          force: f.force === true,
          ...(f.deletionsFrom !== undefined && { deletionsFrom: userPath(f.deletionsFrom) }),
          dataDir: g.dataDir,
          store: storeSelection(config),
          ...(config.auditSecret !== undefined && { auditSecret: config.auditSecret }),
          runtime: {
            ...(g.policyPath && { policyPath: g.policyPath }),
            ...(g.modelId && { modelId: g.modelId }),
            ...(config.modelsDir !== undefined && { modelsDir: config.modelsDir }),
          },
          caller,
          ...(io.stderrIsTTY && {
            onProgress: (p: { owners: number; memories: number }) =>
              io.stderr.write(`\rrestoring: ${p.owners} owners, ${p.memories} memories`),
          }),
        });
        if (io.stderrIsTTY) io.stderr.write('\n');
        for (const w of r.warnings) io.err(`warning: ${w}`);
        if (f.json) return io.out(JSON.stringify(r, null, 2));
        io.out(
          `restored ${r.memories} memories of ${r.owners} owners from ${r.file} (${r.format}, ` +
            `${r.backup.store} backup of ${r.backup.createdAt}) into an ${r.mode === 'empty' ? 'empty store' : 'existing store, replacing its ' + r.replacedMemories + ' memories'} in ${r.ms} ms`,
        );
        if (r.mode === 'empty')
          io.out(`audit log: ${r.auditEventsReplayed} events of the backup, ${r.apiKeys} API keys`);
        if (r.droppedWithoutSources > 0)
          io.out(
            `left out ${r.droppedWithoutSources} derived memories whose sources the backup lacks (deleted while it was taken)`,
          );
        io.out(
          `deletions applied again: ${r.deletionsReapplied.memories} memories, from ${r.deletionsReapplied.events} audit events after the backup`,
        );
        io.out(`audit chain: ok, ${r.audit.checked} events verified`);
      },
    );
}
