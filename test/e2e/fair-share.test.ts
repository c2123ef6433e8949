// Invariant 13 (fair share) against `keepgraph start` on each store, with a
// policy of small limits so each case is a few requests: a user key of one
// owner tries what issue 38's report did to stall every tenant. A memory
// naming more sources than limits.derivedFrom is refused and nothing is
// written; a lineage or a neighbourhood wider than limits.graphNodes is cut
// and says so; an MCP batch over limits.mcpBatch is refused, and each call
// of a batch counts against the rate limit; a forget's receipt counts the
// surviving sources of what it queues for re-derivation instead of listing
// them. (How long other requests wait meanwhile is measured by
// bench/abuse.ts, not asserted here.) The rate-limit case runs last: it
// spends the key's minute.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_POLICY_PATH } from '@keepgraph/core/policy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, startKeepGraph, type KeepGraphProcess } from './keepgraph-process.ts';
import { storeEnv } from './stores.ts';
import { STORE_KINDS } from '@keepgraph/runtime';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are JSON read by shape
type Json = any;

const LIMITS = { derivedFrom: 12, graphNodes: 20, mcpBatch: 4 };
const RATE_LIMIT = 60;

describe.each(STORE_KINDS)('fair share over %s', (store) => {
  let server: KeepGraphProcess;
  let key: string;
  const dataDir = mkdtempSync(join(tmpdir(), `kg-fair-${store}-`));
  const owner = `fair-${randomUUID().slice(0, 8)}`;
  const policyPath = join(dataDir, 'policy.yaml');

  async function call(
    path: string,
    init: { method?: string; body?: unknown } = {},
  ): Promise<{ status: number; json: Json; bytes: number }> {
    const r = await fetch(`${server.base}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${key}`,
        ...(init.body !== undefined && { 'content-type': 'application/json' }),
        ...(path === '/mcp' && { accept: 'application/json, text/event-stream' }),
      },
      ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
    });
    const text = await r.text();
    return { status: r.status, json: text ? JSON.parse(text) : null, bytes: text.length };
  }

  const fact = (i: number) => ({
    kind: 'fact',
    text: `Fair share note ${i}: the heron nests by the north pond every spring`,
    origin: { sessionId: 'fair', turn: String(i) },
  });
  const summary = (i: number, derivedFrom: string[]) => ({
    kind: 'summary',
    text: `Fair share summary ${i} of what the pond notes say about herons`,
    derivedFrom,
    origin: { sessionId: 'fair', turn: `s${i}` },
  });

  async function writeAll(items: unknown[]): Promise<string[]> {
    const r = await call(`/v1/owners/${owner}/memories:batch`, {
      method: 'POST',
      body: { memories: items },
    });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.failed).toEqual([]);
    return (r.json.stored as { id: string }[]).map((s) => s.id);
  }

  let sources: string[] = [];

  beforeAll(async () => {
    // The shipped policy with its limits lowered (each line must be there to change).
    let policy = readFileSync(DEFAULT_POLICY_PATH, 'utf8');
    for (const [name, value] of Object.entries(LIMITS)) {
      const line = new RegExp(`^  ${name}: \\d+$`, 'm');
      expect(policy).toMatch(line);
      policy = policy.replace(line, `  ${name}: ${value}`);
    }
    writeFileSync(policyPath, policy);
    const env = {
      ...storeEnv(store),
      KEEPGRAPH_POLICY: policyPath,
      KEEPGRAPH_RATE_LIMIT: String(RATE_LIMIT),
      KEEPGRAPH_SWEEP_INTERVAL_MS: '0',
    };
    server = await startKeepGraph(dataDir, env);
    key = createKey(dataDir, env, [
      '--role',
      'user',
      '--owners',
      owner,
      '--name',
      'fair share',
    ]).key;
    sources = await writeAll(Array.from({ length: 40 }, (_, i) => fact(i)));
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a memory naming more sources than limits.derivedFrom, and writes nothing', async () => {
    const before = await call(`/v1/owners/${owner}/memories?limit=500`);
    const r = await call(`/v1/owners/${owner}/memories`, {
      method: 'POST',
      body: summary(0, sources.slice(0, LIMITS.derivedFrom + 1)),
    });
    expect(r.status).toBe(422);
    expect(r.json.error.code).toBe('refused_too_many_sources');
    expect(r.json.error.details).toEqual({
      max: LIMITS.derivedFrom,
      named: LIMITS.derivedFrom + 1,
    });
    const after = await call(`/v1/owners/${owner}/memories?limit=500`);
    expect(after.json.memories.length).toBe(before.json.memories.length);
    // At the limit it is written.
    const ok = await call(`/v1/owners/${owner}/memories`, {
      method: 'POST',
      body: summary(1, sources.slice(0, LIMITS.derivedFrom)),
    });
    expect(ok.status, JSON.stringify(ok.json)).toBe(201);
  });

  it('cuts a lineage and a neighbourhood at limits.graphNodes, and says so', async () => {
    // Layers of summaries over the 40 sources: the top reaches 40 + 4 + 1 memories.
    const layer = await writeAll(
      [0, 1, 2, 3].map((i) => summary(100 + i, sources.slice(i * 10, i * 10 + 10))),
    );
    const [top] = await writeAll([summary(200, layer)]);
    const lineage = await call(`/v1/owners/${owner}/memories/${top}/lineage`);
    expect(lineage.status).toBe(200);
    expect(lineage.json.nodes).toHaveLength(LIMITS.graphNodes);
    expect(lineage.json.attributes.truncated).toBe(true);
    // Nearest first: the top and its own sources are all there.
    const keys = new Set(lineage.json.nodes.map((n: { key: string }) => n.key));
    for (const id of [top, ...layer]) expect(keys.has(id)).toBe(true);
    // No edge dangles past the cut.
    for (const e of lineage.json.edges as { target: string }[])
      expect(keys.has(e.target)).toBe(true);
    // A small lineage is whole.
    const whole = await call(`/v1/owners/${owner}/memories/${layer[0]}/lineage`);
    expect(whole.json.nodes).toHaveLength(11);
    expect(whole.json.attributes.truncated).toBe(false);

    // A source more memories grew out of than the limit: its neighbourhood is cut too.
    const fanIn = await writeAll(
      Array.from({ length: LIMITS.graphNodes + 5 }, (_, i) => summary(300 + i, [sources[39]!])),
    );
    expect(fanIn).toHaveLength(LIMITS.graphNodes + 5);
    const around = await call(`/v1/owners/${owner}/memories/${sources[39]}/neighbours`);
    expect(around.status).toBe(200);
    const memories = around.json.nodes.filter(
      (n: { attributes: { nodeType: string } }) => n.attributes.nodeType === 'memory',
    );
    expect(memories.length).toBeLessThanOrEqual(LIMITS.graphNodes);
    expect(around.json.attributes.truncated).toBe(true);
  });

  it('answers a forget with counts of surviving sources, not every id of every re-derivation', async () => {
    const ids = await writeAll(Array.from({ length: 30 }, (_, i) => fact(1000 + i)));
    const [shared, ...others] = ids;
    // 10 summaries, each over the shared source and as many others as allowed.
    const others11 = others.slice(0, LIMITS.derivedFrom - 1);
    await writeAll(Array.from({ length: 10 }, (_, i) => summary(400 + i, [shared!, ...others11])));
    const receipt = await call(`/v1/owners/${owner}/forget`, {
      method: 'POST',
      body: { ids: [shared] },
    });
    expect(receipt.status).toBe(200);
    expect(receipt.json.deletedMemoryIds).toHaveLength(11);
    expect(receipt.json.rederive).toHaveLength(10);
    for (const r of receipt.json.rederive) {
      expect(r.survivingSourceCount).toBe(LIMITS.derivedFrom - 1);
      expect(r).not.toHaveProperty('survivingSources');
    }
    // 11 deleted ids and 10 entries: none of the surviving sources' ids.
    for (const id of others11) expect(JSON.stringify(receipt.json)).not.toContain(id);
  });

  it('refuses an MCP batch over limits.mcpBatch, and counts each call of a batch against the rate limit', async () => {
    const batch = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        jsonrpc: '2.0',
        id: i + 1,
        method: 'tools/call',
        params: { name: 'lineage', arguments: { id: sources[0] } },
      }));
    const over = await call('/mcp', { method: 'POST', body: batch(LIMITS.mcpBatch + 1) });
    expect(over.status).toBe(400);
    expect(over.json.error.code).toBe('invalid_input');
    expect(over.json.error.details).toMatchObject({ max: LIMITS.mcpBatch });

    // RATE_LIMIT calls a minute: batches of mcpBatch calls run out after
    // RATE_LIMIT / mcpBatch requests (fewer, counting this file's other
    // requests), where one-request-per-batch would allow RATE_LIMIT batches.
    let limited: { status: number; json: { error?: { code: string } } } | null = null;
    let batches = 0;
    for (; batches < RATE_LIMIT; batches += 1) {
      const r = await call('/mcp', { method: 'POST', body: batch(LIMITS.mcpBatch) });
      if (r.status === 429) {
        limited = r;
        break;
      }
      expect(r.status, JSON.stringify(r.json).slice(0, 300)).toBe(200);
      expect(r.json).toHaveLength(LIMITS.mcpBatch);
    }
    expect(limited?.json.error?.code).toBe('rate_limited');
    expect(batches).toBeLessThanOrEqual(RATE_LIMIT / LIMITS.mcpBatch);
  });
});
