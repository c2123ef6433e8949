// The refusal corpus against a real `keepgraph start` on each store (the
// default policy): 208 credentials of 17 kinds and 100 personal-data items of 5 kinds
// go into every stored field through every route (single write, batch, kv,
// session append, the owner id in the URL), each placement a value of its
// own. Then the data directory's raw files (database, WAL, shared memory,
// audit secret; on Neo4j, a dump of every node, relationship and full-text
// document, since its files are the database server's) and the server's log
// are read as bytes: no credential may be
// anywhere, and at least 95% of the personal data must be refused or
// redacted. Every answer is a 2xx or a coded 4xx, never a 5xx.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKeepGraph, type KeepGraphProcess } from './keepgraph-process.ts';
import { rawStoreBytes, storeEnv } from './stores.ts';
import { credentials, personalData, type SensitiveValue } from '../corpus/sensitive-values.ts';

const CREDENTIALS_PER_FIELD = 208;
const PERSONAL_PER_FIELD = 100;

type Body = Record<string, unknown>;
const benign = (n: number): Body => ({
  kind: 'fact',
  text: `Benign note number ${n} about the garden shed and its leaking roof`,
  origin: { sessionId: 'g1' },
});

/** Every field of a memory write that the store keeps, and how a value is put there. */
const MEMORY_FIELDS: Record<string, (b: Body, v: string) => void> = {
  text: (b, v) => (b.text = `Benign note about the garden shed, with ${v} in it`),
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

interface Placement {
  route: string;
  field: string;
  item: SensitiveValue;
  sensitive: 'credential' | 'personal';
  status: number;
  code: string | null;
}

const seedOf = (s: string) => createHash('sha256').update(s).digest().readUInt32LE(0);

function corpusFor(route: string, field: string) {
  const key = `${route} ${field}`;
  return [
    ...credentials(CREDENTIALS_PER_FIELD, seedOf(`c ${key}`)).map((item) => ({
      item,
      sensitive: 'credential' as const,
    })),
    ...personalData(PERSONAL_PER_FIELD, seedOf(`p ${key}`)).map((item) => ({
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

describe.each(['sqlite', 'neo4j'] as const)(
  'the refusal corpus through every route of keepgraph start on %s',
  (store) => {
    let server: KeepGraphProcess | undefined;
    let base: string;
    let key = '';
    const log = () => server?.log() ?? '';
    const dataDir = mkdtempSync(join(tmpdir(), 'kg-corpus-'));
    const placements: Placement[] = [];

    async function send(
      method: string,
      path: string,
      body: unknown,
    ): Promise<{ status: number; json: Body }> {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          authorization: `Bearer ${key}`,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as Body };
    }
    const codeOf = (json: Body) => (json.error as { code?: string } | undefined)?.code ?? null;
    const url = (s: string) => encodeURIComponent(s);
    // Owners of this run only, so a Neo4j shared with other suites is told apart.
    const run = store === 'neo4j' ? `-${Date.now().toString(36)}` : '';

    beforeAll(async () => {
      // Thousands of requests from one key: no rate limit here (it has its own tests).
      server = await startKeepGraph(dataDir, { KEEPGRAPH_RATE_LIMIT: '0', ...storeEnv(store) });
      base = server.base;
      key = server.operatorKey;
      const made = await send('POST', '/v1/keys', { name: 'corpus', role: 'user', owners: 'all' });
      expect(made.status).toBe(201);
      key = made.json.key as string;

      let n = 0;
      const record = (
        route: string,
        field: string,
        p: { item: SensitiveValue; sensitive: Placement['sensitive'] },
        status: number,
        code: string | null,
      ) => placements.push({ route, field, ...p, status, code });

      // One write per placement, each field in turn.
      for (const [field, put] of Object.entries(MEMORY_FIELDS)) {
        await pool(corpusFor('memory', field), 4, async (p) => {
          const body = benign(n++);
          put(body, p.item.value);
          const r = await send('POST', `/v1/owners/corpus-memory${run}/memories`, body);
          record('POST memories', field, p, r.status, codeOf(r.json));
        });
      }
      // The batch route: one batch per field, refusals reported by index.
      for (const [field, put] of Object.entries(MEMORY_FIELDS)) {
        const corpus = corpusFor('batch', field);
        const memories = corpus.map((p) => {
          const body = benign(n++);
          put(body, p.item.value);
          return body;
        });
        const r = await send('POST', `/v1/owners/corpus-batch${run}/memories:batch`, { memories });
        expect(r.status, JSON.stringify(r.json).slice(0, 300)).toBe(200);
        const failed = new Map(
          (r.json.failed as { index: number; code: string }[]).map((f) => [f.index, f.code]),
        );
        corpus.forEach((p, i) =>
          record('POST memories:batch', field, p, failed.has(i) ? 422 : 200, failed.get(i) ?? null),
        );
      }
      // kv: the key in the URL, and the value's text.
      await pool(corpusFor('kv', 'key'), 4, async (p) => {
        const r = await send('PUT', `/v1/owners/corpus-kv${run}/kv/${url(p.item.value)}`, {
          text: `value number ${n++} for the shed`,
          origin: { sessionId: 'kv' },
        });
        record('PUT kv/:key', 'key', p, r.status, codeOf(r.json));
      });
      await pool(corpusFor('kv', 'text'), 4, async (p) => {
        const r = await send('PUT', `/v1/owners/corpus-kv${run}/kv/k${n++}`, {
          text: `the shed note says ${p.item.value}`,
          origin: { sessionId: 'kv' },
        });
        record('PUT kv/:key', 'text', p, r.status, codeOf(r.json));
      });
      // The session buffer: the session id in the URL, and the message.
      await pool(corpusFor('session', 'sessionId'), 4, async (p) => {
        const r = await send(
          'POST',
          `/v1/owners/corpus-session${run}/sessions/${url(p.item.value)}/messages`,
          { messages: [{ role: 'user', text: `shed roof message ${n++}` }] },
        );
        record('POST sessions/:id/messages', 'sessionId', p, r.status, codeOf(r.json));
      });
      await pool(corpusFor('session', 'message'), 4, async (p) => {
        const r = await send('POST', `/v1/owners/corpus-session${run}/sessions/s${n++}/messages`, {
          messages: [{ role: 'user', text: `about the shed: ${p.item.value}` }],
          remember: true,
        });
        record('POST sessions/:id/messages', 'messages[0].text', p, r.status, codeOf(r.json));
      });
      // The owner id in the URL, on a write and on a session append.
      await pool(corpusFor('owner', 'memory'), 4, async (p) => {
        const r = await send('POST', `/v1/owners/${url(p.item.value)}/memories`, benign(n++));
        record('POST memories', 'ownerId', p, r.status, codeOf(r.json));
      });
      await pool(corpusFor('owner', 'session'), 4, async (p) => {
        const r = await send('POST', `/v1/owners/${url(p.item.value)}/sessions/s1/messages`, {
          messages: [{ role: 'user', text: `shed roof message ${n++}` }],
        });
        record('POST sessions/:id/messages', 'ownerId', p, r.status, codeOf(r.json));
      });
      // Reads under a credential-bearing owner store nothing either.
      for (const p of corpusFor('owner', 'read').slice(0, 40)) {
        await send('POST', `/v1/owners/${url(p.item.value)}/recall`, { query: 'garden shed roof' });
        await send('DELETE', `/v1/owners/${url(p.item.value)}`, undefined);
        record('POST recall, DELETE owner', 'ownerId', p, 200, null);
      }
    }, 600_000);

    afterAll(async () => {
      await server?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    // Reading every byte back takes time proportional to the store: on Neo4j
    // that is the test database every suite of the run shares (tens of
    // thousands of nodes by the time this file runs), about a minute here.
    const RAW_SCAN_MS = 300_000;
    const rawNow = () => rawStoreBytes(store, dataDir);

    it('answers every placement with a 2xx or a coded 4xx, and a benign control write still works', async () => {
      const bad = placements.filter((p) => p.status >= 500 || (p.status >= 400 && !p.code));
      expect(bad.slice(0, 5)).toEqual([]);
      const control = await send('POST', `/v1/owners/corpus-control${run}/memories`, benign(-1));
      expect(control.status).toBe(201);
    });

    it(
      'stores, logs and audits no credential anywhere: database, WAL and server log, as bytes',
      async () => {
        const raw = await rawNow();
        const found = placements
          .filter((p) => p.sensitive === 'credential')
          .filter((p) => raw.includes(Buffer.from(p.item.needle)) || log().includes(p.item.needle));
        const credentialPlacements = placements.filter((p) => p.sensitive === 'credential').length;
        // The grep reads real data: the redacted writes are there, and so are the request lines.
        expect(raw.includes(Buffer.from('Benign note about the garden shed, with'))).toBe(true);
        expect(log()).toContain('request completed');
        console.log(
          `[corpus] ${credentialPlacements} credential placements; found stored or logged: ${found.length}`,
        );
        expect(
          found.map((p) => `${p.route} ${p.field} ${p.item.kind} (${p.status} ${p.code})`),
        ).toEqual([]);
      },
      RAW_SCAN_MS,
    );

    it(
      'refuses or redacts at least 95% of personal data, by field, as the policy says',
      async () => {
        const raw = await rawNow();
        const personal = placements.filter((p) => p.sensitive === 'personal');
        const table = new Map<
          string,
          { n: number; refused: number; redacted: number; kept: number }
        >();
        const kept: Placement[] = [];
        for (const p of personal) {
          const row = `${p.route} ${p.field}`;
          const t = table.get(row) ?? { n: 0, refused: 0, redacted: 0, kept: 0 };
          t.n++;
          const stored = raw.includes(Buffer.from(p.item.needle)) || log().includes(p.item.needle);
          if (stored) {
            t.kept++;
            kept.push(p);
          } else if (p.status >= 400) t.refused++;
          else t.redacted++;
          table.set(row, t);
        }
        const handled = personal.length - kept.length;
        console.log(
          `[corpus] personal data: ${handled}/${personal.length} refused or redacted (${((100 * handled) / personal.length).toFixed(1)}%)`,
        );
        for (const [row, t] of table)
          console.log(
            `[corpus]   ${row}: n ${t.n}, refused ${t.refused}, redacted ${t.redacted}, kept ${t.kept}`,
          );
        const keptKinds: Record<string, number> = {};
        for (const p of kept)
          keptKinds[`${p.field} ${p.item.kind}`] =
            (keptKinds[`${p.field} ${p.item.kind}`] ?? 0) + 1;
        console.log(`[corpus]   kept by field and kind: ${JSON.stringify(keptKinds)}`);
        expect(handled / personal.length).toBeGreaterThanOrEqual(0.95);
      },
      RAW_SCAN_MS,
    );

    it(
      'after SIGTERM (the server checkpoints and closes) the files still hold none of it',
      async () => {
        await server!.stop();
        const raw = await rawNow();
        const credential = placements.filter(
          (p) => p.sensitive === 'credential' && raw.includes(Buffer.from(p.item.needle)),
        );
        expect(credential.length).toBe(0);
        expect(log()).not.toMatch(/"url":"\/v1\/owners\//);
      },
      RAW_SCAN_MS,
    );
  },
);
