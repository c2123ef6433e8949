// What the analyst's web UI calls, over HTTP against `keepgraph start`, on
// both stores: the read log (a memory's blast radius), the dry run of
// forget and revoke-source (the closure listed, nothing deleted or
// audited, then the real call deleting exactly those ids, its answer the
// receipt as before), how an Idempotency-Key treats a dry run, and the
// governance KPIs moving with what was done.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKeepGraph, type KeepGraphProcess } from './keepgraph-process.ts';
import { storeEnv } from './stores.ts';
import { STORE_KINDS } from '@keepgraph/runtime';

/* eslint-disable @typescript-eslint/no-explicit-any -- answers are JSON read by shape */

const RECEIPT_KEYS = [
  'ownerId',
  'reason',
  'requested',
  'deletedMemoryIds',
  'deletedContentHashes',
  'embeddingsDeleted',
  'fullTextEntriesDeleted',
  'relationEdgesDeleted',
  'entitiesDeleted',
  'sessionMessagesDeleted',
  'rederive',
  'at',
].sort();
const DELETION_TYPES = ['delete', 'expire', 'evict', 'revoke_source', 'forget_owner'];

for (const store of STORE_KINDS) {
  describe(`the analyst's API over HTTP (${store})`, () => {
    let dir: string;
    let kg: KeepGraphProcess;
    let userKey = '';
    let analystKey = '';
    const owner = `analyst-${randomUUID()}`;
    const o = `/owners/${owner}`;

    async function send(
      method: string,
      path: string,
      body?: unknown,
      opts: { as?: string; key?: string } = {},
    ) {
      const r = await fetch(`${kg.base}/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${opts.as ?? userKey}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
          ...(opts.key !== undefined && { 'idempotency-key': opts.key }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      return {
        status: r.status,
        replayed: r.headers.get('idempotent-replayed'),
        json: (await r.json()) as any,
      };
    }
    const remember = async (body: Record<string, unknown>) => {
      const r = await send('POST', `${o}/memories`, body);
      expect(r.status, JSON.stringify(r.json)).toBe(201);
      return r.json.memory.id as string;
    };
    const derivedFrom = (text: string, sources: string[]) => ({
      kind: 'summary',
      text,
      authority: 'agent_inferred',
      derivedFrom: sources,
      origin: { extractor: { name: 'e2e', version: '1' } },
    });
    const held = async (id: string) => (await send('GET', `${o}/memories/${id}`)).status;
    const deletionEvents = async () =>
      (
        await send('GET', `/audit?ownerId=${owner}&limit=1000`, undefined, { as: kg.operatorKey })
      ).json.events.filter((e: any) => DELETION_TYPES.includes(e.type));

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), `keepgraph-analyst-${store}-`));
      kg = await startKeepGraph(join(dir, 'data'), {
        KEEPGRAPH_RATE_LIMIT: '0',
        ...storeEnv(store),
      });
      const key = async (role: string) => {
        const made = await send(
          'POST',
          '/keys',
          { name: `${role} key`, role, owners: [owner] },
          { as: kg.operatorKey },
        );
        expect(made.status).toBe(201);
        return made.json.key as string;
      };
      userKey = await key('user');
      analystKey = await key('analyst');
    }, 180_000);

    afterAll(async () => {
      await kg?.stop();
      await rm(dir, { recursive: true, force: true });
    });

    let root = '';
    let child = '';
    let grandchild = '';
    let bystander = '';

    it('lists the reads that served a memory, for an analyst too, and refuses bad queries', async () => {
      root = await remember({
        kind: 'episode',
        text: 'Jordan said the Porto office opens in September',
        origin: { sessionId: 'e2e-1', turn: '1' },
      });
      child = await remember(derivedFrom('Jordan moves to the Porto office in September', [root]));
      grandchild = await remember(derivedFrom('Jordan is in Porto from the autumn', [child]));
      bystander = await remember({
        kind: 'preference',
        text: 'Jordan prefers tea to coffee',
        origin: { sessionId: 'e2e-2' },
      });
      const recall = await send('POST', `${o}/recall`, {
        query: 'When does the Porto office open?',
        kinds: ['episode'],
        sessionId: 'e2e-reader',
      });
      expect(recall.status).toBe(200);
      expect(recall.json.results.map((h: any) => h.memory.id)).toEqual([root]);

      const reads = await send('GET', `${o}/reads?memoryId=${root}&limit=10`, undefined, {
        as: analystKey,
      });
      expect(reads.status, JSON.stringify(reads.json)).toBe(200);
      expect(reads.json).toEqual({
        reads: [
          {
            requestId: recall.json.requestId,
            principal: expect.stringMatching(/^key:/),
            sessionId: expect.stringMatching(/^hmac-sha256:[0-9a-f]{64}$/),
            memoryIds: [root],
            at: expect.any(String),
          },
        ],
      });
      const none = await send('GET', `${o}/reads?memoryId=${bystander}`);
      expect(none.json).toEqual({ reads: [] });
      const older = await send(
        'GET',
        `${o}/reads?before=${encodeURIComponent(reads.json.reads[0].at)}`,
      );
      expect(older.json).toEqual({ reads: [] });
      for (const q of ['limit=0', 'limit=1001', 'before=yesterday', 'memoryid=x']) {
        const bad = await send('GET', `${o}/reads?${q}`);
        expect(bad.status, q).toBe(400);
        expect(bad.json.error.code, q).toBe('invalid_input');
      }
      const elsewhere = await send('GET', `/owners/not-${owner}/reads`, undefined, {
        as: analystKey,
      });
      expect(elsewhere.status).toBe(403);
      expect(elsewhere.json.error.code).toBe('owner_out_of_scope');
    });

    it('dry-runs forget: lists the closure, deletes and audits nothing; a key does not make the real call replay it; then deletes exactly those', async () => {
      const key = `dry-${randomUUID()}`;
      const dry = await send('POST', `${o}/forget`, { ids: [root], dryRun: true }, { key });
      expect(dry.status, JSON.stringify(dry.json)).toBe(200);
      const closure = [root, child, grandchild].sort();
      expect(dry.json).toMatchObject({
        ownerId: owner,
        reason: 'forget',
        dryRun: true,
        requested: [root],
        memoryIds: closure,
      });
      expect(dry.json.memories.map((m: any) => [m.id, m.derived])).toEqual([
        [root, false],
        ...[child, grandchild].sort().map((id) => [id, true]),
      ]);
      expect(dry.json.memories[0]).toEqual({
        id: root,
        kind: 'episode',
        authority: 'user',
        text: 'Jordan said the Porto office opens in September',
        derived: false,
      });
      for (const id of [...closure, bystander]) expect(await held(id)).toBe(200);
      expect(await deletionEvents()).toEqual([]);

      // The same dry run again is answered again; the key with the real
      // deletion is another request: refused, and nothing is deleted.
      const again = await send('POST', `${o}/forget`, { ids: [root], dryRun: true }, { key });
      expect(again.replayed).toBe('true');
      expect(again.json).toEqual(dry.json);
      const reused = await send('POST', `${o}/forget`, { ids: [root] }, { key });
      expect(reused.status).toBe(409);
      expect(reused.json.error.code).toBe('idempotency_key_reused');
      // A misspelt dry run, and an analyst's, delete nothing either.
      const typo = await send('POST', `${o}/forget`, { ids: [root], dryrun: true });
      expect(typo.status).toBe(400);
      expect(typo.json.error.code).toBe('invalid_input');
      const notBool = await send('POST', `${o}/forget`, { ids: [root], dryRun: 'yes' });
      expect(notBool.status).toBe(400);
      const analyst = await send(
        'POST',
        `${o}/forget`,
        { ids: [root], dryRun: true },
        { as: analystKey },
      );
      expect(analyst.status).toBe(403);
      expect(analyst.json.error.code).toBe('forbidden_role');
      const unknown = await send('POST', `${o}/forget`, { ids: [randomUUID()], dryRun: true });
      expect(unknown.status).toBe(404);
      for (const id of closure) expect(await held(id)).toBe(200);
      expect(await deletionEvents()).toEqual([]);

      const real = await send('POST', `${o}/forget`, { ids: [root] }, { key: `real-${key}` });
      expect(real.status).toBe(200);
      expect(Object.keys(real.json).sort()).toEqual(RECEIPT_KEYS);
      expect([...real.json.deletedMemoryIds].sort()).toEqual(dry.json.memoryIds);
      for (const id of closure) expect(await held(id)).toBe(404);
      expect(await held(bystander)).toBe(200);
      expect((await deletionEvents()).map((e: any) => e.type)).toEqual(['delete']);
      // The kept dry-run answer held their text: it went with them.
      const verify = await send('POST', `${o}/verify-forgotten`, {
        ids: real.json.deletedMemoryIds,
        contentHashes: real.json.deletedContentHashes,
      });
      expect(verify.json).toMatchObject({ forgotten: true, traces: [] });
      const stale = await send('POST', `${o}/forget`, { ids: [root], dryRun: true }, { key });
      expect(stale.status).toBe(404);
    });

    it('dry-runs revoke-source, then revokes exactly what it listed', async () => {
      const uri = `https://news.example.com/${owner}`;
      const page = await remember({
        kind: 'fact',
        text: 'The museum is closed on Mondays according to its website',
        authority: 'third_party',
        origin: { source: { kind: 'url', uri } },
      });
      const summary = await remember(derivedFrom('Do not plan museum visits on Mondays', [page]));
      const dry = await send('POST', `${o}/revoke-source`, { uri, dryRun: true });
      expect(dry.status, JSON.stringify(dry.json)).toBe(200);
      expect(dry.json).toMatchObject({ reason: 'revoke_source', dryRun: true });
      expect(dry.json.memoryIds).toEqual([page, summary].sort());
      expect(await held(page)).toBe(200);
      const typo = await send('POST', `${o}/revoke-source`, { uri, dry_run: true });
      expect(typo.status).toBe(400);
      expect(await held(page)).toBe(200);
      expect(await deletionEvents()).toHaveLength(1);
      const real = await send('POST', `${o}/revoke-source`, { uri });
      expect(real.status).toBe(200);
      expect(Object.keys(real.json).sort()).toEqual(RECEIPT_KEYS);
      expect([...real.json.deletedMemoryIds].sort()).toEqual(dry.json.memoryIds);
      expect(await held(summary)).toBe(404);
    });

    it('reports the KPIs the overview draws, and they moved', async () => {
      const k = await send('GET', `/kpis?ownerId=${owner}`, undefined, { as: analystKey });
      expect(k.status, JSON.stringify(k.json)).toBe(200);
      expect(k.json.memories).toBe(1);
      expect(k.json.medianAgeMs).toEqual(expect.any(Number));
      expect(k.json.medianAgeMs).toBeGreaterThanOrEqual(0);
      expect(k.json.deletionPropagation.count).toBe(2);
      expect(k.json.deletionPropagation.p50Ms).toBeGreaterThanOrEqual(0);
      expect(k.json.deletionPropagation.maxMs).toBeGreaterThanOrEqual(
        k.json.deletionPropagation.p50Ms,
      );
      // Summed over the days (a run may cross midnight, UTC): six writes, a
      // recall, the two dry runs that were answered and the ten lookups of
      // `held` that found their memory (reads), two cascades.
      const sum = (field: string) =>
        k.json.series.reduce((n: number, d: any) => n + (d[field] as number), 0);
      expect(
        Object.fromEntries(
          ['writes', 'deletions', 'reads', 'refusals', 'expired'].map((x) => [x, sum(x)]),
        ),
      ).toEqual({
        writes: 6,
        deletions: 2,
        reads: 13,
        refusals: 0,
        expired: 0,
      });
      expect(k.json.series.at(-1).deletionP50Ms).toEqual(expect.any(Number));
      // Documented: the forget answer is one of two shapes.
      const doc = (await (await fetch(`${kg.base}/openapi.json`)).json()) as any;
      const ok =
        doc.paths['/v1/owners/{ownerId}/forget'].post.responses['200'].content['application/json']
          .schema;
      expect(ok.anyOf ?? ok.oneOf).toHaveLength(2);
      expect(doc.paths['/v1/owners/{ownerId}/reads'].get.summary).toMatch(/read log/);
    });
  });
}
