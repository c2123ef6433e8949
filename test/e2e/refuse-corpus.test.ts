// The refusal corpus (the default policy): credentials of 17 kinds and
// personal data of 5 kinds go into every stored field through every route
// (single write, batch, kv, session append, the owner id on a write and on a
// session append, reads under a credential-bearing owner), each placement a
// value of its own. Then the store's raw bytes (database, WAL, shared memory,
// audit secret; on Neo4j, a dump of every node, relationship and full-text
// document, since its files are the database server's) and the server's log
// are searched: no credential may be anywhere, at least 95% of the personal
// data must be refused or redacted, and every answer is a success or a coded
// refusal (a 2xx or a coded 4xx over HTTP, never a 5xx).
//
// Two layers, because the two questions cost differently. What the policy
// gate lets through is decided by the engine's use-cases, which the routes
// call: the whole corpus (208 credentials and 100 personal items in each
// placement) goes through them in this process, on an embedded runtime over
// SQLite with the hashing embedder and no background jobs (sent over HTTP
// to a server on each store, the same values took about 400 s).
// What only a real server adds (its request schemas, values in URLs, its
// log, the Neo4j store, a shutdown that checkpoints) does not depend on how
// many values of a kind it sees: `keepgraph start` on each store gets one
// value of every kind in every placement. Every check searches the bytes in
// one pass for all its values (../corpus/find-needles.ts), not once per value.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isKeepGraphError, type Caller, type Engine } from '@keepgraph/core';
import { createHashingEmbedder } from '@keepgraph/embedder';
import { openEmbeddedRuntime, type EmbeddedRuntime, STORE_KINDS } from '@keepgraph/runtime';
import { httpStatusOf } from '@keepgraph/server';
import { startKeepGraph, type KeepGraphProcess } from './keepgraph-process.ts';
import { rawStoreBytes, storeEnv } from './stores.ts';
import {
  CREDENTIAL_KINDS,
  PERSONAL_KINDS,
  credentials,
  personalData,
  type SensitiveValue,
} from '../corpus/sensitive-values.ts';
import { findNeedles } from '../corpus/find-needles.ts';

/** Values per placement: the whole corpus through the engine, every kind once over HTTP. */
interface Sizes {
  credentials: number;
  personal: number;
}
const ENGINE_SIZES: Sizes = { credentials: 208, personal: 100 };
const HTTP_SIZES: Sizes = { credentials: CREDENTIAL_KINDS, personal: PERSONAL_KINDS };

type Body = Record<string, unknown>;
const benign = (n: number): Body => ({
  kind: 'fact',
  text: `Benign note number ${n} about the garden shed and its leaking roof`,
  origin: { sessionId: 'g1' },
});
/** What every redacted text write keeps: the search reads real data if it finds it. */
const STORED_MARKER = 'Benign note about the garden shed, with';

/** Every field of a memory write that the store keeps, and how a value is put there. */
const MEMORY_FIELDS: Record<string, (b: Body, v: string) => void> = {
  text: (b, v) => (b.text = `${STORED_MARKER} ${v} in it`),
  key: (b, v) => (b.key = v),
  'tags[0]': (b, v) => (b.tags = [v]),
  'origin.sessionId': (b, v) => (b.origin = { sessionId: v }),
  'origin.turn': (b, v) => (b.origin = { sessionId: 'g1', turn: v }),
  'origin.messageId': (b, v) => (b.origin = { sessionId: 'g1', messageId: v }),
  'origin.speaker': (b, v) => (b.origin = { sessionId: 'g1', speaker: v }),
  'origin.tool.name': (b, v) => (b.origin = { tool: { name: v } }),
  'origin.tool.callId': (b, v) => (b.origin = { tool: { name: 'crm', callId: v } }),
  'origin.source.uri': (b, v) =>
    (b.origin = { source: { kind: 'url', uri: `https://docs.example.net/p/${v}` } }),
  'origin.extractor.name': (b, v) =>
    (b.origin = { sessionId: 'g1', extractor: { name: v, version: '1' } }),
  'about[0].name': (b, v) => (b.about = [{ name: v, type: 'person' }]),
  'relations[0].subject.name': (b, v) =>
    (b.relations = [
      { subject: { name: v, type: 'person' }, type: 'KNOWS', object: { name: 'Carol' } },
    ]),
  'relations[0].object.name': (b, v) =>
    (b.relations = [{ subject: { name: 'Carol' }, type: 'KNOWS', object: { name: v } }]),
  'relations[0].reason': (b, v) =>
    (b.relations = [
      { subject: { name: 'Carol' }, type: 'KNOWS', object: { name: 'Dan' }, reason: v },
    ]),
};

/**
 * Placements of every value: each memory field on the single write and on
 * the batch, the kv key and text, the session id and message, the owner id
 * on a write and on a session append. Reads (recall, then forgetting the
 * owner) take the credentials only, two calls each.
 */
const PLACEMENTS = 2 * Object.keys(MEMORY_FIELDS).length + 6;
const valuesSent = (s: Sizes) => PLACEMENTS * (s.credentials + s.personal) + 2 * s.credentials;

/** How a call was answered: its HTTP status (the route's, for an engine call) and error code. */
interface Outcome {
  status: number;
  code: string | null;
  /** An uncoded error's message, to name it in a failure. */
  message?: string;
}

interface Placement extends Outcome {
  route: string;
  field: string;
  item: SensitiveValue;
  sensitive: 'credential' | 'personal';
}

/**
 * The use-cases the routes call, as a layer reaches them: the engine's
 * methods in process, or HTTP requests to a server. Owner ids are per layer.
 */
interface Routes {
  remember(ownerId: string, body: Body): Promise<Outcome>;
  /** One outcome per item, in order. */
  rememberMany(ownerId: string, bodies: Body[]): Promise<Outcome[]>;
  putByKey(ownerId: string, key: string, body: Body): Promise<Outcome>;
  sessionAppend(ownerId: string, sessionId: string, body: Body): Promise<Outcome>;
  recall(ownerId: string, query: string): Promise<Outcome>;
  forgetOwner(ownerId: string): Promise<Outcome>;
}

const seedOf = (s: string) => createHash('sha256').update(s).digest().readUInt32LE(0);

/** The values of one placement: credentials first, then personal data, from the placement's seed. */
function corpusFor(layer: string, sizes: Sizes, route: string, field: string) {
  const key = `${layer} ${route} ${field}`;
  return [
    ...credentials(sizes.credentials, seedOf(`c ${key}`)).map((item) => ({
      item,
      sensitive: 'credential' as const,
    })),
    ...personalData(sizes.personal, seedOf(`p ${key}`)).map((item) => ({
      item,
      sensitive: 'personal' as const,
    })),
  ];
}

/** Run `fn` over `items`, `width` at a time. */
async function pool<T>(items: T[], width: number, fn: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

const seconds = (t0: number) => ((performance.now() - t0) / 1000).toFixed(1);

/**
 * Send the corpus through every placement, `width` calls at a time; owner ids
 * end with `suffix`. Route names are the HTTP routes' (the engine layer calls
 * the use-case each one calls), so both layers' tables read alike. Logs how
 * long it took, under `label`.
 */
async function sendCorpus(
  routes: Routes,
  opts: { label: string; layer: string; sizes: Sizes; suffix: string; width: number },
): Promise<Placement[]> {
  const { label, layer, sizes, suffix, width } = opts;
  const t0 = performance.now();
  const placements: Placement[] = [];
  const corpus = (route: string, field: string) => corpusFor(layer, sizes, route, field);
  let n = 0;
  const record = (
    route: string,
    field: string,
    p: { item: SensitiveValue; sensitive: Placement['sensitive'] },
    o: Outcome,
  ) => placements.push({ route, field, ...p, ...o });

  // One write per placement, each field in turn.
  for (const [field, put] of Object.entries(MEMORY_FIELDS)) {
    await pool(corpus('memory', field), width, async (p) => {
      const body = benign(n++);
      put(body, p.item.value);
      record('POST memories', field, p, await routes.remember(`corpus-memory${suffix}`, body));
    });
  }
  // The batch route: one batch per field, refusals reported by index.
  for (const [field, put] of Object.entries(MEMORY_FIELDS)) {
    const values = corpus('batch', field);
    const memories = values.map((p) => {
      const body = benign(n++);
      put(body, p.item.value);
      return body;
    });
    const outcomes = await routes.rememberMany(`corpus-batch${suffix}`, memories);
    values.forEach((p, i) => record('POST memories:batch', field, p, outcomes[i]!));
  }
  // kv: the key in the URL, and the value's text.
  await pool(corpus('kv', 'key'), width, async (p) => {
    const o = await routes.putByKey(`corpus-kv${suffix}`, p.item.value, {
      text: `value number ${n++} for the shed`,
      origin: { sessionId: 'kv' },
    });
    record('PUT kv/:key', 'key', p, o);
  });
  await pool(corpus('kv', 'text'), width, async (p) => {
    const o = await routes.putByKey(`corpus-kv${suffix}`, `k${n++}`, {
      text: `the shed note says ${p.item.value}`,
      origin: { sessionId: 'kv' },
    });
    record('PUT kv/:key', 'text', p, o);
  });
  // The session buffer: the session id in the URL, and the message.
  await pool(corpus('session', 'sessionId'), width, async (p) => {
    const o = await routes.sessionAppend(`corpus-session${suffix}`, p.item.value, {
      messages: [{ role: 'user', text: `shed roof message ${n++}` }],
    });
    record('POST sessions/:id/messages', 'sessionId', p, o);
  });
  await pool(corpus('session', 'message'), width, async (p) => {
    const o = await routes.sessionAppend(`corpus-session${suffix}`, `s${n++}`, {
      messages: [{ role: 'user', text: `about the shed: ${p.item.value}` }],
      remember: true,
    });
    record('POST sessions/:id/messages', 'messages[0].text', p, o);
  });
  // The owner id in the URL, on a write and on a session append.
  await pool(corpus('owner', 'memory'), width, async (p) => {
    record('POST memories', 'ownerId', p, await routes.remember(p.item.value, benign(n++)));
  });
  await pool(corpus('owner', 'session'), width, async (p) => {
    const o = await routes.sessionAppend(p.item.value, 's1', {
      messages: [{ role: 'user', text: `shed roof message ${n++}` }],
    });
    record('POST sessions/:id/messages', 'ownerId', p, o);
  });
  // Reads under a credential-bearing owner store nothing either (an owner
  // with nothing is a 404 to forget: a coded 4xx like any other).
  const readers = corpus('owner', 'read').filter((p) => p.sensitive === 'credential');
  await pool(readers, width, async (p) => {
    record('POST recall', 'ownerId', p, await routes.recall(p.item.value, 'garden shed roof'));
    record('DELETE owner', 'ownerId', p, await routes.forgetOwner(p.item.value));
  });
  console.log(`[corpus ${label}] ${placements.length} values sent in ${seconds(t0)} s`);
  return placements;
}

/** The use-cases in this process, as the routes call them, for one caller. */
function engineRoutes(engine: Engine, caller: Caller): Routes {
  /** The route's status on success; a refusal's status is its code's over HTTP. */
  const answer = async (status: number, call: () => Promise<unknown>): Promise<Outcome> => {
    try {
      await call();
      return { status, code: null };
    } catch (e) {
      if (isKeepGraphError(e)) return { status: httpStatusOf(e.code), code: e.code };
      return { status: 500, code: null, message: String(e) };
    }
  };
  return {
    remember: (ownerId, body) => answer(201, () => engine.remember(caller, ownerId, body)),
    async rememberMany(ownerId, bodies) {
      let failed = new Map<number, string>();
      const whole = await answer(200, async () => {
        const r = await engine.rememberMany(caller, ownerId, bodies);
        failed = new Map(r.failed.map((f) => [f.index, f.code]));
      });
      if (whole.status !== 200) return bodies.map(() => whole);
      return bodies.map((_, i) => {
        const code = failed.get(i);
        return code === undefined
          ? { status: 200, code: null }
          : { status: httpStatusOf(code), code };
      });
    },
    putByKey: (ownerId, key, body) =>
      answer(200, () => engine.putByKey(caller, ownerId, key, body)),
    sessionAppend: (ownerId, sessionId, body) =>
      answer(200, () => engine.sessionAppend(caller, ownerId, sessionId, body)),
    recall: (ownerId, query) => answer(200, () => engine.recall(caller, ownerId, query)),
    forgetOwner: (ownerId) => answer(200, () => engine.forgetOwner(caller, ownerId)),
  };
}

/** The same use-cases through a server's routes, with an API key (both read at each call). */
function httpRoutes(to: { base: string; key: string }): Routes {
  async function send(method: string, path: string, body?: unknown) {
    const res = await fetch(`${to.base}/v1/owners/${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        authorization: `Bearer ${to.key}`,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as Body;
    const code = (json.error as { code?: string } | undefined)?.code ?? null;
    return { status: res.status, code, json };
  }
  const outcome = ({ status, code }: Outcome): Outcome => ({ status, code });
  const url = encodeURIComponent;
  return {
    remember: async (ownerId, body) =>
      outcome(await send('POST', `${url(ownerId)}/memories`, body)),
    async rememberMany(ownerId, memories) {
      const r = await send('POST', `${url(ownerId)}/memories:batch`, { memories });
      if (r.status !== 200) return memories.map(() => outcome(r));
      const failed = new Map(
        (r.json.failed as { index: number; code: string }[]).map((f) => [f.index, f.code]),
      );
      return memories.map((_, i) => {
        const code = failed.get(i);
        return code === undefined
          ? { status: 200, code: null }
          : { status: httpStatusOf(code), code };
      });
    },
    putByKey: async (ownerId, k, body) =>
      outcome(await send('PUT', `${url(ownerId)}/kv/${url(k)}`, body)),
    sessionAppend: async (ownerId, sessionId, body) =>
      outcome(await send('POST', `${url(ownerId)}/sessions/${url(sessionId)}/messages`, body)),
    recall: async (ownerId, query) =>
      outcome(await send('POST', `${url(ownerId)}/recall`, { query })),
    forgetOwner: async (ownerId) => outcome(await send('DELETE', url(ownerId))),
  };
}

/** Answers that are neither a success nor a coded 4xx: a 5xx, or an error without a code. */
const uncoded = (placements: Placement[]) =>
  placements
    .filter((p) => p.status >= 500 || (p.status >= 400 && !p.code))
    .map((p) => `${p.route} ${p.field} ${p.item.kind}: ${p.status} ${p.code} ${p.message ?? ''}`);

/**
 * Every value sent was answered with a success or a coded 4xx (never a 5xx);
 * logs how, by kind of value and error code ('ok' for a success).
 */
function expectEveryValueAnswered(label: string, placements: Placement[], sizes: Sizes) {
  expect(placements.length).toBe(valuesSent(sizes));
  logAnswers(label, placements);
  expect(uncoded(placements).slice(0, 5)).toEqual([]);
}

/** How the values were answered, by kind of value and error code ('ok' for a success). */
function logAnswers(label: string, placements: Placement[]) {
  const tally: Record<string, Record<string, number>> = {};
  for (const p of placements) {
    const row = (tally[p.sensitive] ??= {});
    const answer = p.code ?? (p.status < 400 ? 'ok' : `uncoded ${p.status}`);
    row[answer] = (row[answer] ?? 0) + 1;
  }
  console.log(`[corpus ${label}] ${placements.length} answers: ${JSON.stringify(tally)}`);
}

/**
 * One pass over `streams` (each searched on its own) for every needle of
 * `placements` and the stored marker: the placements found, and whether the
 * marker was (the search read the store's real data).
 */
function search(placements: Placement[], streams: (Buffer | string)[]) {
  const found = findNeedles([STORED_MARKER, ...placements.map((p) => p.item.needle)], streams);
  return {
    marker: found.has(STORED_MARKER),
    found: placements.filter((p) => found.has(p.item.needle)),
  };
}

const credentialsOf = (placements: Placement[]) =>
  placements.filter((p) => p.sensitive === 'credential');
const describeFound = (found: Placement[]) =>
  found.map((p) => `${p.route} ${p.field} ${p.item.kind} (${p.status} ${p.code})`);

/** None of the credentials sent is in `streams`, by a search that read real data. */
function expectNoCredentialIn(placements: Placement[], streams: (Buffer | string)[]) {
  const { marker, found } = search(credentialsOf(placements), streams);
  expect(marker).toBe(true);
  expect(describeFound(found)).toEqual([]);
}

/**
 * The personal data refused (a 4xx), redacted (stored without the value) or
 * kept (the value found), as a table by route and field; the share handled.
 */
function personalReport(label: string, placements: Placement[], streams: (Buffer | string)[]) {
  const personal = placements.filter((p) => p.sensitive === 'personal');
  const kept = new Set(search(personal, streams).found);
  const table = new Map<string, { n: number; refused: number; redacted: number; kept: number }>();
  for (const p of personal) {
    const row = `${p.route} ${p.field}`;
    const t = table.get(row) ?? { n: 0, refused: 0, redacted: 0, kept: 0 };
    t.n++;
    if (kept.has(p)) t.kept++;
    else if (p.status >= 400) t.refused++;
    else t.redacted++;
    table.set(row, t);
  }
  const handled = personal.length - kept.size;
  console.log(
    `[corpus ${label}] personal data: ${handled}/${personal.length} refused or redacted (${((100 * handled) / personal.length).toFixed(1)}%)`,
  );
  for (const [row, t] of table)
    console.log(
      `[corpus ${label}]   ${row}: n ${t.n}, refused ${t.refused}, redacted ${t.redacted}, kept ${t.kept}`,
    );
  const keptKinds: Record<string, number> = {};
  for (const p of kept)
    keptKinds[`${p.field} ${p.item.kind}`] = (keptKinds[`${p.field} ${p.item.kind}`] ?? 0) + 1;
  console.log(`[corpus ${label}]   kept by field and kind: ${JSON.stringify(keptKinds)}`);
  return handled / personal.length;
}

describe("the whole refusal corpus through the engine's use-cases, on SQLite in process", () => {
  const label = 'engine sqlite';
  const dataDir = mkdtempSync(join(tmpdir(), 'kg-corpus-engine-'));
  // A user's API key for every owner, as the HTTP layer's key is.
  const caller: Caller = { role: 'user', owners: 'all', principal: 'key:corpus', expiresAt: null };
  let runtime: EmbeddedRuntime | undefined;
  let placements: Placement[] = [];
  const raw = () => rawStoreBytes('sqlite', dataDir);

  beforeAll(async () => {
    runtime = await openEmbeddedRuntime({
      dataDir,
      embedder: createHashingEmbedder(384),
      sweepIntervalMs: null,
    });
    // One call at a time: the store's writes are synchronous, so more at once
    // would only interleave them.
    placements = await sendCorpus(engineRoutes(runtime.engine, caller), {
      label,
      layer: 'engine',
      sizes: ENGINE_SIZES,
      suffix: '',
      width: 1,
    });
  }, 600_000);

  afterAll(async () => {
    await runtime?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers every value with a success or a coded refusal (never a 5xx), and a benign control write still works', async () => {
    expectEveryValueAnswered(label, placements, ENGINE_SIZES);
    const control = await runtime!.engine.remember(caller, 'corpus-control', benign(-1));
    expect(control.memory.text).toContain('garden shed');
  });

  it('stores and audits no credential: database, WAL, shared memory and audit secret, as bytes', async () => {
    const t0 = performance.now();
    const bytes = await raw();
    const { marker, found } = search(credentialsOf(placements), [bytes]);
    console.log(
      `[corpus ${label}] ${credentialsOf(placements).length} credential placements; found stored: ${found.length} (${(bytes.length / 2 ** 20).toFixed(1)} MiB searched in ${seconds(t0)} s)`,
    );
    expect(marker).toBe(true);
    expect(describeFound(found)).toEqual([]);
  });

  it('refuses or redacts at least 95% of personal data, by field, as the policy says', async () => {
    expect(personalReport(label, placements, [await raw()])).toBeGreaterThanOrEqual(0.95);
  });

  it('after close (the store checkpoints its WAL into the database) the files still hold none of it', async () => {
    await runtime!.close();
    expectNoCredentialIn(placements, [await raw()]);
  });
});

describe.each(STORE_KINDS)(
  'every kind of the refusal corpus through every route of keepgraph start on %s',
  (store) => {
    const label = `http ${store}`;
    let server: KeepGraphProcess | undefined;
    const to = { base: '', key: '' };
    const routes = httpRoutes(to);
    const log = () => server?.log() ?? '';
    const dataDir = mkdtempSync(join(tmpdir(), 'kg-corpus-'));
    let placements: Placement[] = [];
    // Owners of this run only, so a Neo4j shared with other suites is told apart.
    const run = store === 'neo4j' ? `-${Date.now().toString(36)}` : '';

    beforeAll(async () => {
      // Many requests from one key: no rate limit here (it has its own tests).
      server = await startKeepGraph(dataDir, { KEEPGRAPH_RATE_LIMIT: '0', ...storeEnv(store) });
      to.base = server.base;
      const made = await fetch(`${to.base}/v1/keys`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${server.operatorKey}`,
        },
        body: JSON.stringify({ name: 'corpus', role: 'user', owners: 'all' }),
      });
      expect(made.status).toBe(201);
      to.key = ((await made.json()) as { key: string }).key;
      placements = await sendCorpus(routes, {
        label,
        layer: 'http',
        sizes: HTTP_SIZES,
        suffix: run,
        width: 4,
      });
    }, 600_000);

    afterAll(async () => {
      await server?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    // Reading every byte back takes time proportional to the store: on Neo4j
    // that is the test database every suite on this worker shares (tens of
    // thousands of nodes by the time this file runs). Before the stop the
    // two checks read one copy.
    const RAW_SCAN_MS = 300_000;
    let beforeStop: Promise<Buffer> | undefined;
    const rawBeforeStop = () => (beforeStop ??= rawStoreBytes(store, dataDir));

    it('answers every placement with a 2xx or a coded 4xx, and a benign control write still works', async () => {
      // Every route met every kind of value.
      expectEveryValueAnswered(label, placements, HTTP_SIZES);
      const control = await routes.remember(`corpus-control${run}`, benign(-1));
      expect(control.status).toBe(201);
    });

    it(
      'stores, logs and audits no credential anywhere: database, WAL and server log, as bytes',
      async () => {
        const { marker, found } = search(credentialsOf(placements), [await rawBeforeStop(), log()]);
        // The search reads real data: the redacted writes are there, and so are the request lines.
        expect(marker).toBe(true);
        expect(log()).toContain('request completed');
        console.log(
          `[corpus ${label}] ${credentialsOf(placements).length} credential placements; found stored or logged: ${found.length}`,
        );
        expect(describeFound(found)).toEqual([]);
      },
      RAW_SCAN_MS,
    );

    it(
      'refuses or redacts at least 95% of personal data, by field, as the policy says',
      async () => {
        const handled = personalReport(label, placements, [await rawBeforeStop(), log()]);
        expect(handled).toBeGreaterThanOrEqual(0.95);
      },
      RAW_SCAN_MS,
    );

    it(
      'after SIGTERM (the server checkpoints and closes) the files still hold none of it',
      async () => {
        await server!.stop();
        expectNoCredentialIn(placements, [await rawStoreBytes(store, dataDir), log()]);
        expect(log()).not.toMatch(/"url":"\/v1\/owners\//);
      },
      RAW_SCAN_MS,
    );
  },
);
