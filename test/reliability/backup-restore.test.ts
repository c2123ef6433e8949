// Backup and restore (issue 18, item 7), on each store, with `keepgraph
// start` and the `keepgraph` command as shipped:
// - memories with lineage (derived from derived), supersession, expiry,
//   entities and relations, of several origins and authorities, are written
//   over HTTP; then `keepgraph backup` runs while a client keeps writing;
// - bad backups (missing, truncated, edited, another version, a damaged
//   database) are refused with exit 1 and nothing written;
// - the backup is restored into an empty store (a fresh data dir; for
//   Neo4j, the database emptied): every memory comes back equal, field by
//   field (ids, origins, lineage, supersession, expiry), and whole (row,
//   full text and, on SQLite, vector); every write acknowledged before the
//   backup began is there, none that was not acknowledged by its end;
//   recall and lineage work; the audit chain verifies;
// - the deletion trap: after the backup a source with two generations
//   derived from it is forgotten, an owner deleted and a memory written;
//   `keepgraph restore` refuses the non-empty store, `--force` replaces its
//   memories and deletes again everything forgotten since the backup (and
//   the write is gone), and the chain verifies;
// - SQLite: the JSONL format round trip too (export -> import keeps ids,
//   origins, lineage and expiry); on Neo4j the backup is the JSONL one.
// Prints the figures: memories backed up and restored, writes served
// during the backup, the backup's and the restore's time, deletions applied
// again.
import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryStore } from '@keepgraph/core/ports';
import { createNeo4jStore, type Neo4jMemoryStore } from '@keepgraph/store-neo4j';
import { createSqliteStore } from '@keepgraph/store-sqlite';
import { operatorCall, startKeepGraph, type KeepGraphProcess } from '../e2e/keepgraph-process.ts';
import { privateNeo4jPort } from '../services.ts';
import { keepgraphArgv, keepgraphEnv } from '../keepgraph-cli.ts';
import { STORE_KINDS } from '@keepgraph/runtime';

/* eslint-disable @typescript-eslint/no-explicit-any -- answers are JSON read by shape */

const root = resolve(import.meta.dirname, '../..');

/** Where each store reports a memory's parts (find-traces of each store). */
const WHOLE: Record<'sqlite' | 'neo4j', string[]> = {
  sqlite: ['memories', 'memory_fts_terms', 'memory_vectors'],
  neo4j: ['Memory', 'memory_text'],
};

/** A number spelt in letters: texts carry no digit run a personal-data detector could read. */
const spelt = (n: number) =>
  [...n.toString(16)].map((d) => String.fromCharCode(97 + parseInt(d, 16))).join('');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/** `keepgraph ARGS` as an operator runs it, over `data` and the store `env` names. */
function keepgraph(args: string[], data: string, env: Record<string, string>): Promise<Run> {
  const t0 = performance.now();
  return new Promise((done) => {
    const p = spawn(process.execPath, keepgraphArgv(...args, '--data', data), {
      cwd: root,
      env: keepgraphEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('exit', (code) =>
      done({ code: code ?? -1, stdout, stderr, ms: Math.round(performance.now() - t0) }),
    );
  });
}

/** A Neo4j of this test's own: a restore empties and replaces a whole database. */
async function startPrivateNeo4j(
  dataDir: string,
): Promise<{ uri: string; stop: () => Promise<void> }> {
  // Beside this worker's own server, on a port of the worker's own.
  const port = String(privateNeo4jPort());
  const script = join(root, 'scripts/neo4j-test-server.sh');
  const run = promisify(execFile);
  const { stdout } = await run('bash', [script, 'start', '--port', port, '--data', dataDir], {
    cwd: root,
  });
  const uri = /NEO4J_URI=(\S+)/.exec(stdout)?.[1];
  if (!uri) throw new Error(`the private Neo4j did not report its URI:\n${stdout}`);
  return {
    uri,
    stop: async () => {
      await run('bash', [script, 'stop', '--port', port], { cwd: root });
    },
  };
}

/** What was seeded, by name. */
interface Seeded {
  owners: { a: string; b: string };
  /** name -> id */
  ids: Record<string, string>;
}

async function post(kg: KeepGraphProcess, owner: string, body: unknown): Promise<string> {
  return (await operatorCall(kg, 'POST', `/owners/${owner}/memories`, body)).memory.id;
}

/**
 * Two owners' memories: episodes of a session and of a tool, a third-party
 * claim from a URL, a fact derived from two episodes and a summary derived
 * from the fact and the claim (two generations), a keyed value written
 * twice (the first superseded), a short-lived episode, entities and a
 * relation, and another owner's operator and tool claims.
 */
async function seed(kg: KeepGraphProcess): Promise<Seeded> {
  const a = `backup-a-${randomUUID()}`;
  const b = `backup-b-${randomUUID()}`;
  const ids: Record<string, string> = {};
  ids.e1 = await post(kg, a, {
    kind: 'episode',
    text: 'Alex said the blue kettle belongs on the kitchen shelf',
    origin: { sessionId: 'morning', turn: 'one', speaker: 'alex' },
    authority: 'user',
    about: [{ name: 'blue kettle', type: 'thing' }],
  });
  ids.e2 = await post(kg, a, {
    kind: 'episode',
    text: 'The inventory tool listed the blue kettle beside the spare key',
    origin: { tool: { name: 'inventory', callId: 'call-aa' }, sessionId: 'morning' },
    authority: 'tool',
    ttlSeconds: 7200,
  });
  ids.e3 = await post(kg, a, {
    kind: 'fact',
    text: 'The harbour guide says kettles rust quickly near the sea',
    origin: { source: { kind: 'url', uri: 'https://example.com/harbour-guide' } },
    authority: 'third_party',
  });
  /** What reflection or compaction (`extractor`) inferred from `sources`. */
  const inferred = (
    kind: string,
    text: string,
    extractor: string,
    sources: string[],
    extra: Record<string, unknown> = {},
  ) =>
    post(kg, a, {
      kind,
      text,
      origin: { extractor: { name: extractor, version: 'one' } },
      authority: 'agent_inferred',
      derivedFrom: sources,
      ...extra,
    });
  ids.f1 = await inferred(
    'fact',
    'Alex keeps the blue kettle on the kitchen shelf next to the spare key',
    'reflect',
    [ids.e1, ids.e2],
    {
      relations: [
        {
          subject: { name: 'Alex', type: 'person' },
          type: 'KEEPS',
          object: { name: 'blue kettle', type: 'thing' },
          reason: 'said so in the morning',
        },
      ],
    },
  );
  ids.s1 = await inferred(
    'summary',
    'Alex keeps a blue kettle on the kitchen shelf; kettles rust near the sea',
    'compact',
    [ids.f1, ids.e3],
  );
  const kv1 = await operatorCall(kg, 'PUT', `/owners/${a}/kv/seat`, {
    text: 'Alex prefers the aisle seat on trains',
    origin: { sessionId: 'morning' },
    authority: 'user',
  });
  ids.kv1 = kv1.memory.id;
  const kv2 = await operatorCall(kg, 'PUT', `/owners/${a}/kv/seat`, {
    text: 'Alex prefers the window seat on trains now',
    origin: { sessionId: 'evening' },
    authority: 'user',
  });
  ids.kv2 = kv2.memory.id;
  expect(kv2.superseded).toBe(ids.kv1);
  ids.short = await post(kg, a, {
    kind: 'episode',
    text: 'Alex mentioned a dentist visit later this week',
    origin: { sessionId: 'evening', turn: 'two' },
    authority: 'user',
    ttlSeconds: 3600,
  });
  ids.b1 = await post(kg, b, {
    kind: 'constraint',
    text: 'Bea must never be booked on overnight ferries',
    origin: { messageId: 'ops-note' },
    authority: 'operator',
  });
  ids.b2 = await post(kg, b, {
    kind: 'fact',
    text: 'The calendar tool shows Bea travelling to the coast in spring',
    origin: { tool: { name: 'calendar' } },
    authority: 'tool',
  });
  return { owners: { a, b }, ids };
}

/** Every memory of `names`, each as GET returns it (superseded ones too). */
async function records(
  kg: KeepGraphProcess,
  s: Seeded,
  names: string[],
): Promise<Map<string, any>> {
  const out = new Map<string, any>();
  for (const name of names) {
    const owner = name.startsWith('b') ? s.owners.b : s.owners.a;
    out.set(name, await operatorCall(kg, 'GET', `/owners/${owner}/memories/${s.ids[name]}`));
  }
  return out;
}

/** The owner's held memories as export.jsonl streams them, by id. */
async function exported(kg: KeepGraphProcess, owner: string): Promise<Map<string, any>> {
  const r = await fetch(`${kg.base}/v1/owners/${owner}/export.jsonl`, {
    headers: { authorization: `Bearer ${kg.operatorKey}` },
  });
  expect(r.status).toBe(200);
  const lines = (await r.text()).split('\n').filter((l) => l.trim() !== '');
  return new Map(lines.map((l) => JSON.parse(l) as any).map((m) => [m.id, m]));
}

/** Ids of the memories among `ids` that are not whole (a part missing where the store reports them). */
async function notWhole(
  kg: KeepGraphProcess,
  store: 'sqlite' | 'neo4j',
  owner: string,
  ids: string[],
): Promise<string[]> {
  const parts = new Map<string, Set<string>>(ids.map((id) => [id, new Set()]));
  for (let i = 0; i < ids.length; i += 200) {
    const check = await operatorCall(kg, 'POST', `/owners/${owner}/verify-forgotten`, {
      ids: ids.slice(i, i + 200),
    });
    for (const t of check.traces) parts.get(t.id)?.add(t.where);
  }
  return ids.filter((id) => !WHOLE[store].every((w) => parts.get(id)!.has(w)));
}

/** A client writing one memory after another to `owner` until stopped. */
function startWriter(kg: KeepGraphProcess, owner: string) {
  const acked: { id: string; at: number }[] = [];
  let stopping = false;
  const loop = (async () => {
    for (let i = 0; !stopping; i++) {
      acked.push({
        id: await post(kg, owner, {
          kind: 'fact',
          text: `Note ${spelt(i)} of the busy writer: the red notebook is in the attic`,
          origin: { sessionId: 'busy' },
        }),
        at: performance.now(),
      });
    }
  })();
  return {
    acked,
    async stop() {
      stopping = true;
      await loop;
      return acked;
    },
  };
}

/** A store of the test process's own over the same data, for counts behind the server's back. */
async function openPort(store: 'sqlite' | 'neo4j', where: string): Promise<MemoryStore> {
  const port =
    store === 'sqlite'
      ? createSqliteStore({ path: join(where, 'keepgraph.db') })
      : createNeo4jStore({ uri: where });
  await port.init({ dimensions: 384 });
  return port;
}

async function memoryCount(store: 'sqlite' | 'neo4j', where: string): Promise<number> {
  if (store === 'sqlite' && !existsSync(join(where, 'keepgraph.db'))) return 0;
  const port = await openPort(store, where);
  try {
    return (await port.counts()).memories;
  } finally {
    await port.close();
  }
}

/** Everything out of a Neo4j database but its migration ledger: what "emptied" means here. */
async function emptyNeo4j(uri: string): Promise<void> {
  const port = (await openPort('neo4j', uri)) as Neo4jMemoryStore;
  const session = port.driver.session({ database: port.database });
  try {
    await session.run(
      `MATCH (n) WHERE NOT n:SchemaMigration AND NOT n:SchemaLock
       CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 1000 ROWS`,
    );
  } finally {
    await session.close();
    await port.close();
  }
}

/** Exit 1 and the error code on stderr. */
function refused(r: Run, code: string): void {
  expect(r.code, r.stderr + r.stdout).toBe(1);
  expect(r.stderr).toContain(`error: ${code}:`);
}

for (const store of STORE_KINDS) {
  describe(`backup and restore (${store})`, () => {
    const started: KeepGraphProcess[] = [];
    let dir = '';
    let neo4j: { uri: string; stop: () => Promise<void> } | null = null;

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), `keepgraph-backup-${store}-`));
      if (store === 'neo4j') neo4j = await startPrivateNeo4j(join(dir, 'neo4j'));
    }, 300_000);

    afterAll(async () => {
      await Promise.all(started.map((p) => p.kill()));
      await neo4j?.stop();
      if (dir) await rm(dir, { recursive: true, force: true });
    }, 120_000);

    it('backs up while serving writes, restores whole into an empty store, and forgets again what was forgotten after the backup', async () => {
      // No background jobs: what is compared is only what the test wrote.
      const storeEnv: Record<string, string> =
        store === 'sqlite'
          ? { KEEPGRAPH_STORE: 'sqlite' }
          : { KEEPGRAPH_STORE: 'neo4j', NEO4J_URI: neo4j!.uri };
      const env = { KEEPGRAPH_RATE_LIMIT: '0', KEEPGRAPH_SWEEP_INTERVAL_MS: '0', ...storeEnv };
      const start = async (data: string) => {
        const kg = await startKeepGraph(data, env);
        started.push(kg);
        return kg;
      };
      const served = join(dir, 'served');
      const file = join(dir, store === 'sqlite' ? 'backup.db' : 'backup.jsonl');
      /** Where the store under test lives, for counts behind the servers' backs. */
      const storeAt = (data: string) => (store === 'sqlite' ? data : neo4j!.uri);

      // 1. Seed, then back up while a client keeps writing.
      let kg = await start(served);
      const s = await seed(kg);
      const names = Object.keys(s.ids);
      const before = await records(kg, s, names);
      const beforeExport = await exported(kg, s.owners.a);
      const busy = `backup-w-${randomUUID()}`;
      const writer = startWriter(kg, busy);
      while (writer.acked.length < 5) await new Promise((r) => setTimeout(r, 50));
      const backupStarted = performance.now();
      const backup = await keepgraph(['backup', '--out', file, '--json'], served, env);
      const backupEnded = performance.now();
      const acked = await writer.stop();
      expect(backup.code, backup.stderr).toBe(0);
      const bk = JSON.parse(backup.stdout);
      const writesDuring = acked.filter((w) => w.at > backupStarted && w.at < backupEnded).length;
      expect(writesDuring, 'the server kept serving writes during the backup').toBeGreaterThan(0);
      expect(bk.format).toBe(store === 'sqlite' ? 'sqlite' : 'jsonl');
      const ackedBefore = acked.filter((w) => w.at < backupStarted).map((w) => w.id);
      const ackedIds = new Set(acked.map((w) => w.id));
      await kg.stop();

      // 2. Bad backups are refused, nothing written. The target is empty now:
      // a fresh data dir, or the Neo4j database emptied.
      const target = store === 'sqlite' ? join(dir, 'restored') : join(dir, 'restored-neo4j');
      if (store === 'neo4j') await emptyNeo4j(neo4j!.uri);
      const restore = (args: string[], data = target) =>
        keepgraph(['restore', ...args, '--json'], data, env);
      refused(await restore(['--from', join(dir, 'no-such-backup')]), 'not_found');
      const jsonl = store === 'sqlite' ? join(dir, 'backup.jsonl') : file;
      if (store === 'sqlite') {
        // The JSONL format of the same store, for the bad-file checks and the round trip below.
        kg = await start(served);
        const j = await keepgraph(['backup', '--out', jsonl, '--format', 'jsonl'], served, env);
        expect(j.code, j.stderr).toBe(0);
        await kg.stop();
        const damaged = join(dir, 'damaged.db');
        writeFileSync(damaged, readFileSync(file));
        await truncate(damaged, Math.floor(readFileSync(file).length / 2));
        refused(await restore(['--from', damaged]), 'invalid_input');
      }
      const lines = readFileSync(jsonl, 'utf8').trimEnd().split('\n');
      const variants: Record<string, string[]> = {
        truncated: lines.slice(0, -1),
        // One letter of a memory's text changed: its content hash says so.
        edited: lines.map((l, i) => (i === 1 ? l.replace(/"text":"(.)/, '"text":"#') : l)),
        // A vector's bytes changed: only the end line's SHA-256 can tell.
        // One base64 letter replaced by another (a sparse vector's first
        // letters can be equal, so swapping two may change nothing).
        bitflip: lines.map((l, i) =>
          i === 1
            ? l.replace(
                /"embedding":"(.)/,
                (_, c: string) => `"embedding":"${c === 'A' ? 'B' : 'A'}`,
              )
            : l,
        ),
        'other-version': lines.map((l, i) =>
          i === 0 ? l.replace('"version":1', '"version":2') : l,
        ),
      };
      for (const [name, variant] of Object.entries(variants)) {
        const path = join(dir, `${name}.jsonl`);
        writeFileSync(path, `${variant.join('\n')}\n`);
        const r = await restore(['--from', path]);
        refused(r, 'invalid_input');
        if (name === 'other-version') expect(r.stderr).toContain('version 2 is not supported');
        if (name === 'truncated') expect(r.stderr).toContain('no end line');
      }
      expect(await memoryCount(store, storeAt(target)), 'a refused restore wrote nothing').toBe(0);

      // 3. Restore into the empty store: every memory back, equal and whole.
      const restored = await restore(['--from', file]);
      expect(restored.code, restored.stderr).toBe(0);
      const rr = JSON.parse(restored.stdout);
      expect(rr.mode).toBe('empty');
      expect(rr.memories).toBe(bk.memories);
      expect(rr.droppedWithoutSources).toBe(0);
      expect(rr.audit.ok).toBe(true);
      kg = await start(target);
      const after = await records(kg, s, names);
      for (const name of names) expect(after.get(name), name).toEqual(before.get(name));
      expect(await exported(kg, s.owners.a)).toEqual(beforeExport);
      expect(after.get('kv1').supersededBy).toBe(s.ids.kv2);
      expect(after.get('s1').derivedFrom.sort()).toEqual([s.ids.f1, s.ids.e3].sort());
      const lineage = await operatorCall(
        kg,
        'GET',
        `/owners/${s.owners.a}/memories/${s.ids.s1}/lineage`,
      );
      const lineageIds = JSON.stringify(lineage);
      for (const n of ['e1', 'e2', 'e3', 'f1']) expect(lineageIds).toContain(s.ids[n]);
      const busyHeld = [...(await exported(kg, busy)).keys()];
      for (const id of ackedBefore)
        expect(busyHeld, `acknowledged before the backup: ${id}`).toContain(id);
      for (const id of busyHeld) expect(ackedIds.has(id), `never acknowledged: ${id}`).toBe(true);
      const seeded = (o: string) => names.filter((n) => n.startsWith('b') === (o === s.owners.b));
      for (const owner of [s.owners.a, s.owners.b])
        expect(
          await notWhole(
            kg,
            store,
            owner,
            seeded(owner).map((n) => s.ids[n]!),
          ),
        ).toEqual([]);
      expect(await notWhole(kg, store, busy, busyHeld)).toEqual([]);
      const recall = await operatorCall(kg, 'POST', `/owners/${s.owners.a}/recall`, {
        query: 'Where does Alex keep the blue kettle?',
      });
      expect(recall.results.map((r: any) => r.memory.id)).toEqual(
        expect.arrayContaining([s.ids.f1]),
      );
      // The backup's audit log came back with it: the seeded writes are in the restored chain.
      const written = (
        await operatorCall(kg, 'GET', `/audit?ownerId=${s.owners.a}&limit=1000`)
      ).events.flatMap((e: any) => (e.type === 'write' ? e.memoryIds : []));
      expect(written).toEqual(expect.arrayContaining([s.ids.e1, s.ids.f1, s.ids.s1]));
      expect((await operatorCall(kg, 'GET', '/audit/verify')).ok).toBe(true);

      // 4. The JSONL round trip of the SQLite store (Neo4j's backup is one already).
      if (store === 'sqlite') {
        const viaJsonl = join(dir, 'restored-jsonl');
        const r = await restore(['--from', jsonl], viaJsonl);
        expect(r.code, r.stderr).toBe(0);
        const kg2 = await start(viaJsonl);
        const again = await records(kg2, s, names);
        for (const name of names) expect(again.get(name), name).toEqual(before.get(name));
        expect(
          await notWhole(
            kg2,
            store,
            s.owners.a,
            seeded(s.owners.a).map((n) => s.ids[n]!),
          ),
        ).toEqual([]);
        expect((await operatorCall(kg2, 'GET', '/audit/verify')).ok).toBe(true);
        await kg2.stop();
      }

      // 5. The trap: forgetting after the backup, then restoring over the store.
      const forgot = await operatorCall(kg, 'POST', `/owners/${s.owners.a}/forget`, {
        ids: [s.ids.e1],
      });
      expect(forgot.deletedMemoryIds.sort()).toEqual([s.ids.e1, s.ids.f1, s.ids.s1].sort());
      await operatorCall(kg, 'DELETE', `/owners/${s.owners.b}`);
      const later = await post(kg, s.owners.a, {
        kind: 'fact',
        text: 'Alex moved the blue kettle to the garage after the backup',
        origin: { sessionId: 'later' },
      });
      // The store lost, its newer backup kept: the older one restored elsewhere
      // takes the newer one's deletions (SQLite: a fresh data dir is another store).
      const newer = join(dir, 'newer.db');
      if (store === 'sqlite')
        expect((await keepgraph(['backup', '--out', newer], target, env)).code).toBe(0);
      await kg.stop();
      if (store === 'sqlite') {
        const lost = join(dir, 'lost');
        const r = await restore(['--from', file, '--deletions-from', newer], lost);
        expect(r.code, r.stderr).toBe(0);
        expect(JSON.parse(r.stdout).deletionsReapplied.memories).toBe(5);
        const port = await openPort(store, lost);
        try {
          const gone = [s.ids.e1!, s.ids.f1!, s.ids.s1!, later];
          expect(await port.getByIds(s.owners.a, gone)).toEqual([]);
          expect(await port.countMemories(s.owners.b)).toBe(0);
          expect((await port.getById(s.owners.a, s.ids.e2!))?.id).toBe(s.ids.e2);
        } finally {
          await port.close();
        }
      }
      const held = await memoryCount(store, storeAt(target));
      refused(await restore(['--from', file]), 'conflict');
      expect(await memoryCount(store, storeAt(target)), 'a refused restore changed nothing').toBe(
        held,
      );
      const forced = await restore(['--from', file, '--force']);
      expect(forced.code, forced.stderr).toBe(0);
      const fr = JSON.parse(forced.stdout);
      expect(fr.mode).toBe('replace');
      expect(fr.audit.ok).toBe(true);
      // e1, f1 and s1, and both of Bea's memories.
      expect(fr.deletionsReapplied.memories).toBe(5);
      kg = await start(target);
      for (const gone of [s.ids.e1, s.ids.f1, s.ids.s1, later]) {
        const r = await fetch(`${kg.base}/v1/owners/${s.owners.a}/memories/${gone}`, {
          headers: { authorization: `Bearer ${kg.operatorKey}` },
        });
        expect(r.status, `${gone} came back`).toBe(404);
      }
      const proof = await operatorCall(kg, 'POST', `/owners/${s.owners.a}/verify-forgotten`, {
        ids: [s.ids.e1, s.ids.f1, s.ids.s1],
        contentHashes: ['e1', 'f1', 's1'].map((n) => before.get(n).contentHash),
      });
      expect(proof.forgotten, JSON.stringify(proof.traces)).toBe(true);
      const bea = await operatorCall(kg, 'GET', `/owners/${s.owners.b}/memories`);
      expect(bea.memories).toEqual([]);
      const kept = names.filter((n) => !['e1', 'f1', 's1', 'b1', 'b2'].includes(n));
      const afterForce = await records(kg, s, kept);
      for (const name of kept) expect(afterForce.get(name), name).toEqual(before.get(name));
      expect((await operatorCall(kg, 'GET', '/audit/verify')).ok).toBe(true);
      const events: any[] = (
        await operatorCall(kg, 'GET', `/audit?ownerId=${s.owners.a}&limit=1000`)
      ).events;
      expect(events.some((e) => e.type === 'delete' && e.details.reappliedFrom)).toBe(true);
      await kg.stop();

      console.log(
        `backup and restore (${store}): ${JSON.stringify({
          memoriesBackedUp: bk.memories,
          memoriesRestored: rr.memories,
          writesServedDuringBackup: writesDuring,
          backupMs: bk.ms,
          backupCommandMs: backup.ms,
          restoreMs: rr.ms,
          restoreCommandMs: restored.ms,
          forcedRestoreMs: fr.ms,
          deletionsReapplied: fr.deletionsReapplied,
          backupBytes: bk.bytes,
        })}`,
      );
    }, 1_200_000);
  });
}
