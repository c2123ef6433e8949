// HTTP fuzz (issue 18, item 1): `keepgraph start` as users run it (SQLite,
// background jobs as shipped, rate limits off so that every case reaches
// the routes) takes 10,000 generated requests over real HTTP on 127.0.0.1:
// every route of the registry and the OpenAPI document (and the hidden
// ones: /mcp, /ui, /docs), inputs generated from each route's own zod
// schemas, sent with every kind of credential (each role's key for one
// owner, another owner's key, a revoked key, malformed headers, none) and
// with one hostile variant in most cases: wrong types, missing and extra
// keys, huge and deeply nested JSON, Unicode edge cases, NUL bytes, path
// tricks in ids, duplicate and prototype keys, wrong content types,
// truncated and mis-framed bodies, odd query strings and methods,
// Idempotency-Keys old and new.
// It holds that:
// - no answer is a 5xx (nor an MCP "internal error");
// - every refusal is a typed error: `{ error: { code, message } }`, its
//   status the one core's table gives the code;
// - afterwards the store holds exactly what accepted requests wrote: the
//   export of every owner (every owner the server lists, and every owner
//   an accepted write named) against the model of store-model.ts.
// 10,000 at full scale, 3,000 in the test command (test/scale.ts).
// Seeded (KG_FUZZ_SEED; KG_FUZZ_CASES for fewer cases while working): a
// failure prints its case number, request and answer.
import { appendFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '@keepgraph/core';
import { HTTP_STATUS } from '@keepgraph/server';
import { operatorCall, startKeepGraph, type KeepGraphProcess } from '../e2e/keepgraph-process.ts';
import { storeEnv } from '../e2e/stores.ts';
import { allRoutes, fuzzCases, toWire, type FuzzCase } from './fuzz/cases.ts';
import { AsJson, UNICODE_EDGES, type Ref } from './fuzz/hostile.ts';
import {
  StoreModel,
  compareWithStore,
  effectOf,
  type OwnerState,
  type StoredMemory,
} from './fuzz/store-model.ts';
import { Raw, closeAgent, send, type WireResponse } from './fuzz/wire.ts';
import { scaled } from '../scale.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- answers are JSON read by shape */

const SEED = Number(process.env.KG_FUZZ_SEED ?? 18_001);
const CASES = scaled('KG_FUZZ_CASES', { ci: 3_000, full: 10_000 });
/** Requests in flight at once: enough to overlap the embedding of one write with the parsing of others. */
const CONCURRENCY = 6;
/** Every case and its answer, one a line, to this file (while working on a failure). */
const LOG = process.env.KG_FUZZ_LOG;

/** A number spelt in letters: owner ids with no digit run a personal-data detector could read. */
const spelt = (n: number) =>
  [...n.toString(16)].map((d) => String.fromCharCode(97 + parseInt(d, 16))).join('');

const KNOWN_CODES = new Set<string>(ERROR_CODES);

describe('HTTP fuzz (sqlite)', () => {
  let kg: KeepGraphProcess | undefined;
  let dir = '';

  afterAll(async () => {
    closeAgent();
    await kg?.stop({ graceMs: 20_000 });
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it(`answers ${CASES} hostile requests with no 5xx, only typed refusals, and stores exactly what it accepted`, async () => {
    dir = await mkdtemp(join(tmpdir(), 'keepgraph-fuzz-'));
    kg = await startKeepGraph(join(dir, 'data'), {
      ...storeEnv('sqlite'),
      KEEPGRAPH_RATE_LIMIT: '0',
      KEEPGRAPH_AUTH_FAILURE_LIMIT: '0',
    });
    const server = kg;
    const port = Number(new URL(server.base).port);
    // Owner ids from the seed: a run's cases name the same owners every time.
    const run = spelt(SEED);
    const [ownerA, ownerB, ownerC] = ['a', 'b', 'c'].map((x) => `fuzz-${run}-${x}`) as [
      string,
      string,
      string,
    ];

    // The keys: each role for owner A, a user of owner B, one revoked.
    const keyFor = async (role: string, owners: string[] | 'all') =>
      (await operatorCall(server, 'POST', '/keys', { name: `fuzz ${role}`, role, owners }))
        .key as string;
    const keys = {
      user: await keyFor('user', [ownerA]),
      agent: await keyFor('agent', [ownerA]),
      tool: await keyFor('tool', [ownerA]),
      analyst: await keyFor('analyst', [ownerA]),
      'other-owner': await keyFor('user', [ownerB]),
    };
    const revoked = await operatorCall(server, 'POST', '/keys', {
      name: 'fuzz revoked',
      role: 'user',
      owners: [ownerA],
    });
    await operatorCall(server, 'DELETE', `/keys/${revoked.id}`);

    const openApi = await (await fetch(`${server.base}/openapi.json`)).json();
    const routes = allRoutes(openApi.paths);
    const cases = fc.sample(fuzzCases(routes), { seed: SEED, numRuns: CASES });

    // The pools references draw from, filled as the run goes.
    const pools: Record<Ref['pool'], string[]> = {
      owner: [
        ownerA,
        ownerB,
        ownerC,
        ...UNICODE_EDGES.map((u) => `fuzz-${run}-${u}`),
        ...UNICODE_EDGES,
        `fuzz-${run}/../${ownerA}`,
        `fuzz-${run}-e\u0301le\u0300ve`,
        `fuzz-${run}-${'x'.repeat(230)}`,
      ],
      memory: ['00000000-0000-4000-8000-000000000000', 'not-a-memory-id'],
      session: ['s-one', 's-two', 'séance', 'e\u0301', 'a/b', '..'],
      kvKey: ['theme', 'currency', 'language', 'clé'],
      apiKey: ['no-such-key'],
    };
    const resolve = (r: Ref) => {
      const pool = pools[r.pool];
      if (r.pool === 'owner' && r.n >= 3) return pool[3 + ((r.n - 3) % (pool.length - 3))]!;
      return pool[r.n % pool.length]!;
    };
    /** Memories written so far, by owner: a case's memory ids are mostly its owner's own. */
    const memoriesOf = new Map<string, string[]>();
    const resolverFor = (c: FuzzCase) => {
      const owner = ownerOf(c, resolve);
      const own = owner === null ? undefined : memoriesOf.get(owner);
      return (r: Ref) =>
        r.pool === 'memory' && own && r.n % 4 !== 0 ? own[r.n % own.length]! : resolve(r);
    };
    const authorization = (c: FuzzCase): string | undefined => {
      switch (c.credential) {
        case 'operator':
          return `Bearer ${server.operatorKey}`;
        case 'revoked':
          return `Bearer ${revoked.key}`;
        case 'malformed':
          return c.malformed;
        case 'none':
          return undefined;
        default:
          return `Bearer ${keys[c.credential]}`;
      }
    };

    const model = new StoreModel();
    const figures = {
      seed: SEED,
      cases: 0,
      byRoute: {} as Record<string, number>,
      byVariant: {} as Record<string, number>,
      byCredential: {} as Record<string, number>,
      statuses: {} as Record<string, number>,
      twoXxByRoute: {} as Record<string, number>,
      fiveXx: 0,
      noAnswer: 0,
      acceptedWriteRequests: 0,
      acceptedMemories: 0,
      acceptedDeletions: 0,
      ms: { p50: 0, p99: 0, max: 0 },
    };
    const failures = {
      fiveXx: [] as string[],
      mcpInternal: [] as string[],
      untyped: [] as string[],
      noAnswer: [] as string[],
      unreadable: [] as string[],
      unknownEffects: [] as string[],
    };
    const durations: number[] = [];
    const bump = (m: Record<string, number>, k: string) => (m[k] = (m[k] ?? 0) + 1);

    const describeCase = (
      i: number,
      c: FuzzCase,
      path: string,
      body: string | null,
      r: WireResponse,
    ) =>
      `#${i} ${c.variant} ${c.credential} ${c.method} ${path.slice(0, 300)}` +
      `${c.trick ? ` [${c.trick}]` : ''}${body !== null ? ` body=${body.slice(0, 300)}` : ''}` +
      ` -> ${r.status || r.error} ${r.text.slice(0, 300)}`;

    /** Read an accepted answer into the model. */
    const record = (
      c: FuzzCase,
      r: WireResponse,
      sentAt: number,
      receivedAt: number,
      label: string,
    ) => {
      // The route that answered: another method on the same path may be another use-case.
      const served = routes.find((x) => x.method === c.method && x.url === c.route.url);
      if (c.method === 'HEAD' || (c.method === 'GET' && !served?.useCase)) return;
      if (!served) {
        failures.unreadable.push(`${label}: accepted by no route the fuzz knows`);
        return;
      }
      const useCase = served.useCase;
      if (!useCase || served.url.endsWith('.jsonl')) return;
      let answer: unknown;
      try {
        answer = JSON.parse(r.text);
      } catch {
        failures.unreadable.push(`${label}: not JSON`);
        return;
      }
      const owner = c.params.ownerId === undefined ? null : ownerOf(c, resolve);
      const ttls = ttlsOf(c);
      try {
        const effect = effectOf(useCase, answer, {
          ownerId: owner,
          sentAt,
          receivedAt,
          ttlOf: (_id, i) => ttls[i - (ttls.first ?? 0)],
        });
        if (effect.unknown && (effect.created.length > 0 || effect.deleted.length > 0))
          failures.unknownEffects.push(`${label}: ${useCase} is not in store-model.ts`);
        model.apply(effect);
        for (const k of effect.created) {
          pools.memory.push(k.id);
          const own = memoriesOf.get(k.ownerId) ?? [];
          own.push(k.id);
          memoriesOf.set(k.ownerId, own);
        }
      } catch (e) {
        failures.unreadable.push(`${label}: ${String(e)}`);
      }
      if (useCase === 'createKey') pools.apiKey.push((answer as any).id);
    };

    const t0 = performance.now();
    let next = 0;
    const worker = async () => {
      while (next < cases.length) {
        const i = next++;
        const c = cases[i]!;
        const { request, bodyText } = toWire(c, { resolve: resolverFor(c), authorization });
        const sentAt = Date.now();
        const r = await send(port, request);
        const receivedAt = Date.now();
        durations.push(r.ms);
        const label = describeCase(i, c, request.path, bodyText, r);
        if (LOG) appendFileSync(LOG, `${label}\n`);
        figures.cases++;
        bump(figures.byRoute, c.route.name);
        bump(figures.byVariant, c.variant);
        bump(figures.byCredential, c.credential);
        bump(figures.statuses, String(r.status || 'none'));
        if (r.status === 0) {
          figures.noAnswer++;
          // Only a request cut short on the wire may go unanswered.
          if (c.trick !== 'short-body') failures.noAnswer.push(label);
          continue;
        }
        if (r.status >= 500) {
          figures.fiveXx++;
          failures.fiveXx.push(label);
          continue;
        }
        if (r.status >= 200 && r.status < 300) {
          bump(figures.twoXxByRoute, c.route.name);
          if (c.route.url === '/mcp' && /"code":-32603/.test(r.text))
            failures.mcpInternal.push(label);
          record(c, r, sentAt, receivedAt, label);
          continue;
        }
        if (r.status >= 400 && request.method !== 'HEAD' && !typedRefusal(c, r))
          failures.untyped.push(label);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const fuzzSeconds = (performance.now() - t0) / 1000;
    durations.sort((a, b) => a - b);
    figures.ms = {
      p50: Math.round(durations[Math.floor(durations.length / 2)] ?? 0),
      p99: Math.round(durations[Math.floor(durations.length * 0.99)] ?? 0),
      max: Math.round(durations.at(-1) ?? 0),
    };
    figures.acceptedWriteRequests = model.writes.requests;
    figures.acceptedMemories = model.writes.memories;
    figures.acceptedDeletions = model.writes.deletions;

    // What the store holds now: every owner it lists, and every owner an accepted write named.
    const owners = new Set([...model.owners(), ...(await listedOwners(server))]);
    const states = new Map<string, OwnerState>();
    for (const owner of owners) states.set(owner, await ownerState(server, owner));
    const comparison = compareWithStore(model, states);

    console.log(
      `fuzz-http: ${JSON.stringify(
        {
          ...figures,
          seconds: Math.round(fuzzSeconds),
          export: comparison.figures,
          failures: Object.fromEntries(Object.entries(failures).map(([k, v]) => [k, v.length])),
          mismatches: {
            missing: comparison.missing.length,
            unexpected: comparison.unexpected.length,
            resurrected: comparison.resurrected.length,
            stillHeld: comparison.stillHeld.length,
            changed: comparison.changed.length,
          },
        },
        null,
        1,
      )}`,
    );

    // A fault's cause is in the server's log: its error lines, with their stacks.
    if (failures.fiveXx.length > 0)
      console.log(
        server
          .log()
          .split('\n')
          .filter((l) => l.includes('"level":50'))
          .join('\n'),
      );
    expect(figures.cases).toBe(CASES);
    if (LOG) appendFileSync(LOG, `${JSON.stringify({ failures, comparison }, null, 1)}\n`);
    expect(failures.fiveXx, 'answers >= 500').toEqual([]);
    expect(failures.mcpInternal, 'MCP internal errors').toEqual([]);
    expect(failures.untyped, 'refusals without a typed error').toEqual([]);
    expect(failures.noAnswer, 'requests without an answer').toEqual([]);
    expect(failures.unreadable, 'accepted answers the model could not read').toEqual([]);
    expect(failures.unknownEffects, 'writing use-cases store-model.ts does not know').toEqual([]);
    expect(comparison.missing, 'accepted writes missing from the export').toEqual([]);
    expect(comparison.unexpected, 'memories no accepted request wrote').toEqual([]);
    expect(comparison.resurrected, 'deleted memories still stored').toEqual([]);
    expect(comparison.stillHeld, 'superseded memories still exported').toEqual([]);
    expect(comparison.changed, 'memories whose text changed').toEqual([]);
    // Not vacuous: the run wrote, and the export had those writes to hold.
    expect(figures.acceptedMemories).toBeGreaterThan(CASES / 100);
    expect(comparison.figures.acceptedHeld).toBeGreaterThan(0);

    // The comparison itself can fail: one write the model forgets is
    // unexpected, one it invents is missing.
    const held = [...states.values()]
      .flatMap((s) => s.exported)
      .find((m) => model.accepted.has(m.id))!;
    const forgetful = new StoreModel();
    for (const [id, k] of model.accepted) if (id !== held.id) forgetful.accepted.set(id, k);
    model.deleted.forEach((id) => forgetful.deleted.add(id));
    model.superseded.forEach((id) => forgetful.superseded.add(id));
    expect(compareWithStore(forgetful, states).unexpected.length).toBe(1);
    forgetful.accepted.set(held.id, model.accepted.get(held.id)!);
    forgetful.accepted.set('00000000-0000-4000-8000-00000000abcd', {
      id: '00000000-0000-4000-8000-00000000abcd',
      ownerId: held.ownerId,
      by: 'remember',
    });
    expect(compareWithStore(forgetful, states).missing.length).toBe(1);
  }, 900_000);
});

/** The owner a case's URL names, as the engine keys it (NFC). */
function ownerOf(c: FuzzCase, resolve: (r: Ref) => string): string | null {
  const v = c.params.ownerId;
  if (typeof v === 'string') return v.normalize('NFC');
  if (v instanceof Raw) {
    try {
      return decodeURIComponent(v.text).normalize('NFC');
    } catch {
      return null;
    }
  }
  if (v && typeof v === 'object' && 'pool' in v) return resolve(v as Ref).normalize('NFC');
  return null;
}

/** The TTLs an import's lines asked for, by position (`first`: the number of the first line). */
function ttlsOf(c: FuzzCase): (number | undefined)[] & { first?: number } {
  const body = c.body as { lines?: unknown; firstLine?: unknown } | undefined;
  if (!body || !Array.isArray(body.lines)) return [];
  const out: (number | undefined)[] & { first?: number } = body.lines.map((l) =>
    l instanceof AsJson
      ? ((l.value as { ttlSeconds?: number }).ttlSeconds ?? undefined)
      : undefined,
  );
  out.first = typeof body.firstLine === 'number' ? body.firstLine : 1;
  return out;
}

/**
 * A refusal in the house format: `{ error: { code, message } }` with a
 * code of core's list and the status core's table gives it. MCP's own
 * protocol errors are JSON-RPC errors, and count as typed.
 */
function typedRefusal(c: FuzzCase, r: WireResponse): boolean {
  // MCP's transport must answer a method it does not serve with 405 (no
  // code of core's maps to it); the body is typed all the same.
  const status = c.route.url === '/mcp' && r.status === 405 ? 400 : r.status;
  let body: any;
  try {
    body = JSON.parse(r.text);
  } catch {
    return false;
  }
  if (c.route.url === '/mcp' && body?.jsonrpc === '2.0' && typeof body.error?.code === 'number')
    return body.error.code !== -32603;
  const code = body?.error?.code;
  return (
    typeof code === 'string' &&
    KNOWN_CODES.has(code) &&
    typeof body.error.message === 'string' &&
    body.error.message.length > 0 &&
    HTTP_STATUS[code as keyof typeof HTTP_STATUS] === status
  );
}

/**
 * A GET as the operator over node:http, the path sent as it is: fetch
 * would resolve an owner id such as `..` as a dot segment.
 */
async function operatorGet(kg: KeepGraphProcess, path: string): Promise<WireResponse> {
  const r = await send(Number(new URL(kg.base).port), {
    method: 'GET',
    path,
    headers: { authorization: `Bearer ${kg.operatorKey}` },
    body: null,
  });
  expect(r.status, `GET ${path}: ${r.text.slice(0, 300)}`).toBe(200);
  return r;
}

/** Every owner the server lists as holding memories. */
async function listedOwners(kg: KeepGraphProcess): Promise<string[]> {
  const owners: string[] = [];
  for (let after: string | null = null; ;) {
    const page: any = JSON.parse(
      (
        await operatorGet(
          kg,
          `/v1/owners?limit=1000${after ? `&after=${encodeURIComponent(after)}` : ''}`,
        )
      ).text,
    );
    owners.push(...page.owners.map((o: any) => o.ownerId));
    after = page.next;
    if (after === null) return owners;
  }
}

/** An owner's export and its stored versions (superseded ones too), read as an operator. */
async function ownerState(kg: KeepGraphProcess, owner: string): Promise<OwnerState> {
  const from = new Date().toISOString();
  const o = encodeURIComponent(owner);
  const exported = (await operatorGet(kg, `/v1/owners/${o}/export.jsonl`)).text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as StoredMemory);
  const stored: StoredMemory[] = [];
  for (let after: string | null = null; ;) {
    const page: any = JSON.parse(
      (
        await operatorGet(
          kg,
          `/v1/owners/${o}/memories?includeSuperseded=true&limit=500${after ? `&after=${encodeURIComponent(after)}` : ''}`,
        )
      ).text,
    );
    stored.push(...page.memories);
    after = page.next;
    if (after === null) break;
  }
  return { exported, stored, from, to: new Date().toISOString() };
}
