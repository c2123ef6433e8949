// The upgrade from release 0.1.0: a data directory (and, on Neo4j, a
// database) written by the release's own `keepgraph start`, then opened by
// the current checkout's. Users upgrade in place: whatever the release wrote
// is theirs, and the new code must still serve it whole. That means every
// memory with its id, text, origin, authority, expiry and lineage; the
// derivation graph and the relations; the session buffers; the audit chain,
// which must still verify with every old event in it; the API keys, so that
// issued keys go on working and revoked ones stay refused; and every
// deletion, since forgetting is a promise the upgrade must not break.
//
// The release is a commit, not a tag: tags do not travel with the
// repository's submissions, and a clone has the full history, so
// `git worktree add` checks the release out beside the checkout and
// `pnpm install` (from the shared store: seconds) makes it runnable. The
// release writes through its HTTP API what a user of 0.1.0 would have:
// episodes with session and turn origins, a keyed fact, a corrected fact,
// rules derived from episodes with relations, a tool's write, a session's
// messages, a revoked key, a forget with its cascade, and what its
// background jobs derived. What it answered is recorded through the same
// API and compared with what the current code answers: the current code may
// add fields to an answer (toMatchObject), never change or drop one.
//
// Both sides embed with the hashing embedder (test/keepgraph-cli.ts says
// why): nothing here depends on what a text means.
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS } from '@keepgraph/runtime';
import { schemaVersions } from '@keepgraph/runtime/version';
import { keepgraphEnv } from '../keepgraph-cli.ts';
import {
  listeningOn,
  operatorCall,
  startKeepGraph,
  v1Fetch,
  type KeepGraphProcess,
} from './keepgraph-process.ts';
import { everyMemory, settle } from './settle.ts';
import { storeEnv, testNeo4jStore, type StoreName } from './stores.ts';

/** Release 0.1.0. */
const RELEASE_COMMIT = '6b8567e55fd434786705e48672caf0dd4bf9c822';
const root = resolve(import.meta.dirname, '../..');

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are JSON read by shape
type Json = any;

async function run(
  cmd: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)(cmd, args, {
      cwd,
      env,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${cmd} ${args.join(' ')} failed: ${err.message}\n${err.stdout ?? ''}\n${err.stderr ?? ''}`,
    );
  }
}

/** The release's server, and how it exited. */
type ReleaseProcess = KeepGraphProcess & { exitCode(): number | null };

/**
 * The release's `keepgraph start` over `dataDir`, run from its own checkout
 * (cwd: the release, so that its tsx and its packages resolve), in the same
 * shape as the current code's startKeepGraph.
 */
async function startRelease(
  release: string,
  dataDir: string,
  env: Record<string, string>,
): Promise<ReleaseProcess> {
  const server = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(release, 'packages/cli/src/main.ts'),
      'start',
      '--port',
      '0',
      '--data',
      dataDir,
    ],
    { cwd: release, env: keepgraphEnv(env), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((r) => server.once('exit', () => r()));
  const { base, log } = await listeningOn(server, 'release');
  const stop = async () => {
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGTERM');
    await exited;
  };
  // README: the first start over an empty store writes the operator key there.
  const keyFile = join(dataDir, 'operator.key');
  if (!existsSync(keyFile)) {
    await stop();
    throw new Error(`release wrote no ${keyFile}:\n${log()}`);
  }
  return {
    base,
    operatorKey: readFileSync(keyFile, 'utf8').trim(),
    log,
    stop,
    async kill() {
      if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
      await exited;
    },
    exitCode: () => server.exitCode,
  };
}

/**
 * A Neo4j as a new server gives it: no data, and no schema either. The
 * worker's database keeps the current code's indexes and migration ledger
 * between files (test/fresh-neo4j.ts), and a release refuses a ledger that
 * names migrations it does not have; an upgrade starts from the schema the
 * release made, so the release makes it here.
 */
async function blankNeo4j(): Promise<void> {
  const { driver } = testNeo4jStore();
  const session = driver.session();
  try {
    await session.run('MATCH (n) CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS');
    for (const r of (await session.run('SHOW CONSTRAINTS YIELD name')).records)
      await session.run(`DROP CONSTRAINT \`${String(r.get('name'))}\` IF EXISTS`);
    const indexes = await session.run(
      "SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name",
    );
    for (const r of indexes.records)
      await session.run(`DROP INDEX \`${String(r.get('name'))}\` IF EXISTS`);
  } finally {
    await session.close();
    await driver.close();
  }
}

/** One /v1 call with `key`; expects `status` (default: any 2xx) and returns the JSON answer. */
async function call(
  kg: KeepGraphProcess,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  status?: number,
): Promise<Json> {
  const r = await v1Fetch(kg.base, key, method, path, body);
  const json = (await r.json()) as Json;
  if (status === undefined)
    expect(r.status, `${method} ${path}: ${JSON.stringify(json)}`).toBeLessThan(300);
  else expect(r.status, `${method} ${path}: ${JSON.stringify(json)}`).toBe(status);
  return json;
}

const OWNER = 'alex';
const o = `/owners/${OWNER}`;

/** Every memory the owner holds, superseded versions too (the operator's listing), by id. */
async function everything(kg: KeepGraphProcess): Promise<Record<string, Json>> {
  return byId(await everyMemory(kg, OWNER));
}

const byId = (memories: Json[]): Record<string, Json> =>
  Object.fromEntries(memories.map((m) => [m.id, m]));

/** The whole audit log, oldest first. */
async function auditEvents(kg: KeepGraphProcess): Promise<Json[]> {
  const out: Json[] = [];
  for (;;) {
    const afterSeq = out.length ? out[out.length - 1].seq : 0;
    const page = await operatorCall(kg, 'GET', `/audit?afterSeq=${afterSeq}&limit=1000`);
    out.push(...page.events);
    if (page.events.length < 1000) return out;
  }
}

/** A graphology answer with its nodes and edges in one order, so two answers compare. */
function ordered(graph: Json): Json {
  const edgeKey = (e: Json) => `${e.source} ${e.target} ${e.attributes?.type ?? ''}`;
  return {
    ...graph,
    nodes: [...graph.nodes].sort((a: Json, b: Json) => String(a.key).localeCompare(String(b.key))),
    edges: [...graph.edges].sort((a: Json, b: Json) => edgeKey(a).localeCompare(edgeKey(b))),
  };
}

/** Derived by a background job (reflection, compaction), not by a caller. */
const bySystem = (m: Json) =>
  m.derivedFrom.length > 0 && String(m.origin.writtenBy).startsWith('system:');

/** What the release answered, to hold the current code to. */
interface Recorded {
  userKey: string;
  userKeyId: string;
  revokedKey: string;
  ids: Record<string, string>;
  memories: Record<string, Json>;
  /** Lineages of derived memories: the caller's rule, and one a background job derived. */
  lineages: Record<string, Json>;
  entityGraph: Json;
  sessions: Json;
  messages: Json;
  kv: Json;
  receipt: Json;
  keys: Json[];
  audit: { ok: boolean; checked: number };
  events: Json[];
}

let work = '';
let release = '';

// One checkout and install of the release for both stores.
beforeAll(async () => {
  await run('git', ['cat-file', '-e', `${RELEASE_COMMIT}^{commit}`], root).catch((e: unknown) => {
    throw new Error(
      `release 0.1.0 (${RELEASE_COMMIT}) is not in this clone; fetch the full history (git fetch --unshallow)\n${String(e)}`,
    );
  });
  work = await mkdtemp(join(tmpdir(), 'kg-upgrade-'));
  release = join(work, 'release');
  await run('git', ['worktree', 'add', '--detach', release, RELEASE_COMMIT], root);
  // The pnpm store is shared with the checkout: nothing to download but what
  // the release has and the checkout no longer does. Its postinstall builds the UI.
  await run('pnpm', ['install', '--frozen-lockfile', '--prefer-offline'], release, {
    ...process.env,
    ONNXRUNTIME_NODE_INSTALL_CUDA: 'skip',
  });
}, 300_000);

afterAll(async () => {
  if (release && existsSync(release)) {
    await run('git', ['worktree', 'remove', '--force', release], root).catch(async () => {
      // Whatever the remove could not do: the folder goes, and git forgets it.
      await rm(release, { recursive: true, force: true });
      await run('git', ['worktree', 'prune'], root);
    });
  }
  if (work) await rm(work, { recursive: true, force: true });
}, 60_000);

describe.each(STORE_KINDS)('upgrade from release 0.1.0 on %s', (store: StoreName) => {
  let dataDir = '';
  let then: Recorded;
  let kg: KeepGraphProcess | undefined;
  let old: ReleaseProcess | undefined;
  const env = () => ({
    ...storeEnv(store),
    // The checkout's models, for a release that looks for them (the hashing
    // embedder needs none, and the release's folder has none).
    KEEPGRAPH_MODELS_DIR: join(root, 'models'),
  });

  afterAll(async () => {
    // A release still running (its test timed out) must not outlive the worktree.
    await old?.kill();
    await kg?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('release 0.1.0 writes a data directory through its API', async () => {
    dataDir = await mkdtemp(join(tmpdir(), `kg-upgrade-${store}-`));
    if (store === 'neo4j') await blankNeo4j();
    const server = (old = await startRelease(release, join(dataDir, 'data'), env()));
    try {
      then = await writeWithRelease(server);
    } finally {
      await server.stop();
    }
    // A clean stop: the server checkpointed and closed the store.
    expect(server.exitCode(), server.log().slice(-4000)).toBe(0);
  }, 150_000);

  it('the current code starts over it', async () => {
    expect(then, 'the release wrote nothing').toBeDefined();
    // Migrations the release did not have, if any, run here.
    kg = await startKeepGraph(join(dataDir, 'data'), env());
    // Whatever the new code's jobs do at start (a re-embed, a relay of the
    // outbox) is done before anything is compared.
    await settle(kg, OWNER, 'after the upgrade');
    // The store now says it holds the current layout: every migration ran.
    const health = (await (await fetch(`${kg.base}/healthz`)).json()) as Json;
    expect(health).toMatchObject({ store, schemaVersion: schemaVersions()[store] });
  }, 120_000);

  it('keeps every memory the release held, field for field', async () => {
    const now = await everything(kg!);
    // Same ids, text, kind, key, origin and source origins, authority,
    // expiry, derivedFrom, supersession, tags, content hash: every field
    // the release answered, with the value it answered.
    expect(now).toMatchObject(then.memories);
    // Nothing written before the upgrade appears from nowhere: anything
    // new can only be what the new code's jobs derived.
    const added = Object.values(now).filter((m) => !(m.id in then.memories));
    expect(added.filter((m) => !bySystem(m))).toEqual([]);
    // The keyed fact is still the key's current value; the corrected fact
    // still points at its correction.
    const kv = await call(kg!, then.userKey, 'GET', `${o}/kv/office`);
    expect(kv).toMatchObject(then.kv);
    expect(now[then.ids.teamDay!]!.supersededBy).toBe(then.ids.teamDayCorrected);
    // Its vectors and full-text rows came through: a recall finds the seats.
    const recall = await call(kg!, then.userKey, 'POST', `${o}/recall`, {
      query: 'aisle seats on long flights',
      topK: 10,
    });
    expect(recall.results.map((r: Json) => r.memory.id)).toContain(then.ids.seats);
  });

  it('keeps the derivation graph, the relations and the sessions', async () => {
    for (const [id, lineage] of Object.entries(then.lineages)) {
      const now = await call(kg!, then.userKey, 'GET', `${o}/memories/${id}/lineage`);
      expect(ordered(now), `the lineage of ${id}`).toMatchObject(ordered(lineage));
    }
    const graph = await call(kg!, then.userKey, 'GET', `${o}/entities/graph?limit=100`);
    expect(ordered(graph)).toMatchObject(ordered(then.entityGraph));
    expect(await call(kg!, then.userKey, 'GET', `${o}/sessions`)).toMatchObject(then.sessions);
    expect(await call(kg!, then.userKey, 'GET', `${o}/sessions/s1/messages`)).toMatchObject(
      then.messages,
    );
  });

  it('keeps the audit chain: every old event, verified, and it goes on', async () => {
    const verdict = await operatorCall(kg!, 'GET', '/audit/verify');
    expect(verdict.ok).toBe(true);
    expect(verdict.checked).toBeGreaterThanOrEqual(then.audit.checked);
    const events = await auditEvents(kg!);
    // The old events as they were (their hashes: the chain the release sealed).
    expect(events.slice(0, then.events.length)).toMatchObject(then.events);
    // A write on the upgraded store extends the same chain.
    await call(kg!, then.userKey, 'POST', `${o}/memories`, {
      kind: 'episode',
      text: 'Alex upgraded KeepGraph today',
      origin: { sessionId: 's3', turn: '1', speaker: 'Alex' },
    });
    const after = await operatorCall(kg!, 'GET', '/audit/verify');
    expect(after.ok).toBe(true);
    expect(after.checked).toBeGreaterThan(verdict.checked);
  });

  it('keeps the API keys: the old user key works, the revoked one stays refused', async () => {
    const { keys } = await operatorCall(kg!, 'GET', '/keys');
    const byId = Object.fromEntries(keys.map((k: Json) => [k.id, k]));
    expect(byId).toMatchObject(Object.fromEntries(then.keys.map((k) => [k.id, k])));
    expect(keys).toHaveLength(then.keys.length);
    const me = await call(kg!, then.userKey, 'GET', '/whoami');
    expect(me).toMatchObject({ principal: `key:${then.userKeyId}`, role: 'user', owners: [OWNER] });
    const revoked = await call(kg!, then.revokedKey, 'GET', '/whoami', undefined, 401);
    expect(revoked.error.code).toBe('unauthenticated');
  });

  it('keeps what was forgotten forgotten', async () => {
    const verify = await call(kg!, then.userKey, 'POST', `${o}/verify-forgotten`, {
      ids: then.receipt.deletedMemoryIds,
      contentHashes: then.receipt.deletedContentHashes,
    });
    expect(verify).toEqual({ forgotten: true, traces: [], scope: { ownerId: OWNER } });
    await call(kg!, then.userKey, 'GET', `${o}/memories/${then.ids.finance}`, undefined, 404);
    const now = await everything(kg!);
    for (const id of then.receipt.deletedMemoryIds) expect(now).not.toHaveProperty(id);
  });
});

/**
 * What a user of 0.1.0 would have written, through the release's API, and
 * everything the release answered about it afterwards.
 */
async function writeWithRelease(old: KeepGraphProcess): Promise<Recorded> {
  const made = await operatorCall(old, 'POST', '/keys', {
    name: 'alex app',
    role: 'user',
    owners: [OWNER],
  });
  const userKey = made.key as string;
  const tool = await operatorCall(old, 'POST', '/keys', {
    name: 'calendar sync',
    role: 'tool',
    owners: [OWNER],
  });
  const ids: Record<string, string> = {};
  const write = async (name: string, body: unknown, key = userKey) => {
    const r = await call(old, key, 'POST', `${o}/memories`, body);
    ids[name] = r.memory.id;
    return r;
  };
  const turn = (sessionId: string, t: number) => ({
    sessionId,
    turn: String(t),
    speaker: 'Alex',
  });

  // Episodes with session and turn origins. The negative one makes
  // reflection run at once (README: "Background jobs").
  // name, text, session, turn.
  const episodes = [
    ['seats', 'I prefer aisle seats on long flights', 's1', 1],
    ['finance', 'Alex strongly dislikes finance clients after the last project', 's1', 2],
    ['marathon', 'My goal is to run the Lisbon marathon next spring', 's1', 3],
    ['tuesdays', 'I usually work from the Porto office on Tuesdays', 's2', 1],
  ] as const;
  for (const [name, text, session, t] of episodes)
    await write(name, {
      kind: 'episode',
      text,
      origin: turn(session, t),
      ...(name === 'seats' && { tags: ['travel'] }),
    });
  // A fact from a page, with an expiry of its own.
  await write('policy', {
    kind: 'fact',
    text: 'Company travel policy allows business class on flights over six hours',
    origin: { source: { kind: 'url', uri: 'https://example.com/travel-policy' } },
    ttlSeconds: 7 * 86_400,
  });
  // A tool's write (tool authority) with the key revoked afterwards.
  await write(
    'offsite',
    {
      kind: 'fact',
      text: 'The team offsite is booked for the second week of March',
      origin: { tool: { name: 'calendar' } },
    },
    tool.key,
  );
  // A fact under a key.
  const kv = await call(old, userKey, 'PUT', `${o}/kv/office`, {
    kind: 'fact',
    text: 'Alex works from the Lisbon office',
    origin: { sessionId: 's2', turn: '2' },
    tags: ['work'],
  });
  ids.office = kv.memory.id;
  // A fact and its correction: two versions, the old superseded.
  await write('teamDay', {
    kind: 'fact',
    text: 'The design team meets on Mondays',
    origin: { sessionId: 's2', turn: '3' },
  });
  const corrected = await call(old, userKey, 'PATCH', `${o}/memories/${ids.teamDay}`, {
    text: 'The design team meets on Thursdays',
    reason: 'outdated',
  });
  expect(corrected.superseded).toBe(true);
  ids.teamDayCorrected = corrected.memory.id;
  // Rules derived from episodes, each asserting a relation (entity edges):
  // name, text, the episode it comes from, [subject, relation, object, reason].
  const rules = [
    [
      'seatRule',
      'Book aisle seats for Alex on long flights',
      'seats',
      ['person', 'PREFERS', 'aisle seats', 'thing', 'long flights'],
    ],
    [
      'financeRule',
      'Do not pitch finance-sector clients to Alex',
      'finance',
      ['person', 'PREFERS_AGAINST', 'finance clients', 'segment', 'the last project'],
    ],
  ] as const;
  for (const [name, text, from, [subjectType, type, object, objectType, reason]] of rules)
    await write(name, {
      kind: 'rule',
      authority: 'agent_inferred',
      text,
      derivedFrom: [ids[from]],
      origin: { extractor: { name: 'manual', version: '1' } },
      relations: [
        {
          subject: { name: 'Alex', type: subjectType },
          type,
          object: { name: object, type: objectType },
          reason,
        },
      ],
    });
  // A session's messages.
  await call(old, userKey, 'POST', `${o}/sessions/s1/messages`, {
    messages: [
      { role: 'user', text: 'Book me an aisle seat on the Lisbon flight please' },
      { role: 'assistant', text: 'Done: seat 14C, an aisle seat' },
    ],
  });
  await operatorCall(old, 'DELETE', `/keys/${tool.id as string}`);

  // Reflection derives memories with DERIVED_FROM edges to the episodes.
  await settle(old, OWNER, 'reflection on the release', { until: (held) => held.some(bySystem) });

  // A forget with its cascade: the episode, the rule derived from it and
  // whatever reflection derived from it, with a receipt and audit events.
  const receipt = await call(old, userKey, 'DELETE', `${o}/memories/${ids.finance}`);
  expect(receipt.deletedMemoryIds).toEqual(expect.arrayContaining([ids.finance, ids.financeRule]));
  const memories = byId(await settle(old, OWNER, 'after the forget on the release'));
  expect(memories).not.toHaveProperty(ids.finance!);

  const derived = Object.values(memories).find(bySystem);
  expect(derived, 'reflection derived nothing on the release').toBeDefined();
  const lineages: Record<string, Json> = {};
  for (const id of [ids.seatRule!, derived.id as string]) {
    lineages[id] = await call(old, userKey, 'GET', `${o}/memories/${id}/lineage`);
    expect(lineages[id].edges.length).toBeGreaterThan(0);
  }
  const verify = await call(old, userKey, 'POST', `${o}/verify-forgotten`, {
    ids: receipt.deletedMemoryIds,
    contentHashes: receipt.deletedContentHashes,
  });
  expect(verify.forgotten).toBe(true);

  const recorded: Recorded = {
    userKey,
    userKeyId: made.id,
    revokedKey: tool.key,
    ids,
    memories,
    lineages,
    entityGraph: await call(old, userKey, 'GET', `${o}/entities/graph?limit=100`),
    sessions: await call(old, userKey, 'GET', `${o}/sessions`),
    messages: await call(old, userKey, 'GET', `${o}/sessions/s1/messages`),
    kv: await call(old, userKey, 'GET', `${o}/kv/office`),
    receipt,
    keys: (await operatorCall(old, 'GET', '/keys')).keys,
    audit: { ok: false, checked: 0 },
    events: [],
  };
  expect(recorded.entityGraph.edges.length).toBeGreaterThan(0);
  expect(recorded.keys.map((k) => k.id)).toEqual(expect.arrayContaining([made.id, tool.id]));
  // The audit last: every read above is an audit event too.
  recorded.audit = await operatorCall(old, 'GET', '/audit/verify');
  recorded.events = await auditEvents(old);
  expect(recorded.audit.ok).toBe(true);
  expect(recorded.events.map((e) => e.type)).toEqual(
    expect.arrayContaining(['key_created', 'key_revoked', 'write', 'corrected', 'delete']),
  );
  return recorded;
}
