// The embedded runtime and startServer: the real model, a SQLite file in a
// temp dir, a real socket; closing releases everything.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { KeepGraphError } from '@keepgraph/core';
import { DEFAULT_PRODUCER_TIMEOUT_MS } from '@keepgraph/workers';
import { createHashingEmbedder } from '@keepgraph/embedder';
import { buildApp } from '../src/app.ts';
import { loadServerConfig } from '@keepgraph/runtime';
import { startServer } from '../src/main.ts';
import { SQLITE_FILE_NAME, openEmbeddedRuntime } from '@keepgraph/runtime';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keepgraph-runtime-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('openEmbeddedRuntime', () => {
  it('opens the store in the data dir with the local model and the in-process background, and closes idempotently', async () => {
    const dataDir = join(dir, 'nested', 'data');
    const rt = await openEmbeddedRuntime({ dataDir, sweepIntervalMs: 60_000 });
    expect(existsSync(join(dataDir, SQLITE_FILE_NAME))).toBe(true);
    expect(rt.store.kind).toBe('sqlite');
    expect(rt.engine.deps.embedder.dimensions).toBeGreaterThan(0);
    expect(rt.background).not.toBeNull();
    await rt.background!.tickExpiry();
    await rt.background!.settle();
    const [expire] = (await rt.background!.runner.queueMetrics()).filter(
      (q) => q.name === 'expire',
    );
    expect(expire).toMatchObject({ completed: 1, failed: 0 });
    await rt.close();
    await rt.close();
  });

  it('refuses an invalid policy before opening anything', async () => {
    const dataDir = join(dir, 'bad-policy');
    await expect(
      openEmbeddedRuntime({
        dataDir,
        policyPath: join(dir, 'missing.yaml'),
        embedder: createHashingEmbedder(8),
        sweepIntervalMs: null,
      }),
    ).rejects.toSatisfy((e) => e instanceof KeepGraphError && e.code === 'invalid_policy');
    expect(existsSync(dataDir)).toBe(false);
  });

  it('names the allowed models for an unknown one', async () => {
    await expect(
      openEmbeddedRuntime({ dataDir: join(dir, 'x'), modelId: 'gpt-9', sweepIntervalMs: null }),
    ).rejects.toThrow(/bge-small-en-v1\.5-q/);
  });
});

describe('internal errors', () => {
  it('answers 500 internal with a generic message, never the cause', async () => {
    const rt = await openEmbeddedRuntime({
      dataDir: join(dir, 'faulty'),
      embedder: createHashingEmbedder(8),
      sweepIntervalMs: null,
    });
    const engine = {
      ...rt.engine,
      kpis: async () => {
        throw new Error('disk /secret/path exploded');
      },
    };
    const app = buildApp({
      engine,
      auth: { trustedCaller: { role: 'operator', owners: 'all', principal: 'op' } },
    });
    const r = await app.inject({ method: 'GET', url: '/v1/kpis' });
    expect(r.statusCode).toBe(500);
    expect(r.json()).toEqual({ error: { code: 'internal', message: 'internal error' } });
    await app.close();
    await rt.close();
  });
});

describe('startServer', () => {
  it('listens on a socket, serves requests and closes the runtime', async () => {
    const config = loadServerConfig(
      {},
      { dataDir: join(dir, 'served'), port: 0, sweepIntervalMs: 0 },
    );
    const server = await startServer(config, { handleSignals: false, logger: false });
    try {
      expect(server.runtime.background).toBeNull();
      const health = await fetch(`${server.url}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ ok: true, store: 'sqlite' });
      const w = await fetch(`${server.url}/v1/owners/o-1/memories`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${server.operatorKey!.key}`,
        },
        body: JSON.stringify({
          kind: 'fact',
          text: 'The user reads science fiction novels.',
          origin: { sessionId: 's' },
          role: 'operator',
        }),
      });
      expect(w.status).toBe(400);
    } finally {
      await server.close();
    }
    // Closing twice is harmless (a signal may race an explicit close).
    await server.close();
  });

  it('needs a credential on every route but health and docs; the first start makes an operator key, the next none', async () => {
    const dataDir = join(dir, 'secure-by-default');
    const config = loadServerConfig({}, { dataDir, port: 0 });
    const first = await startServer(config, { handleSignals: false, logger: false });
    let key: string;
    try {
      key = first.operatorKey!.key;
      expect(key).toMatch(/^kgk_[0-9a-f]{16}_/);
      expect((await readFile(join(dataDir, 'operator.key'), 'utf8')).trim()).toBe(key);
      expect((await stat(join(dataDir, 'operator.key'))).mode & 0o777).toBe(0o600);
      for (const path of ['/healthz', '/openapi.json', '/docs'])
        expect((await fetch(`${first.url}${path}`)).status).toBeLessThan(400);
      const bare = await fetch(`${first.url}/v1/owners/o/recall`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'anything' }),
      });
      expect(bare.status).toBe(401);
      expect(bare.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(((await bare.json()) as { error: { code: string } }).error.code).toBe(
        'unauthenticated',
      );
      const keys = await fetch(`${first.url}/v1/keys`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(keys.status).toBe(200);
    } finally {
      await first.close();
    }
    const second = await startServer(config, { handleSignals: false, logger: false });
    try {
      expect(second.operatorKey).toBeUndefined();
      const r = await fetch(`${second.url}/v1/kpis`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(r.status).toBe(200);
    } finally {
      await second.close();
    }
  });

  it('in the embedded mode runs jobs in-process and shows their queues to operators', async () => {
    const config = loadServerConfig(
      {},
      { dataDir: join(dir, 'embedded-jobs'), port: 0, sweepIntervalMs: 60_000 },
    );
    const server = await startServer(config, { handleSignals: false, logger: false });
    try {
      expect(server.runtime.background).not.toBeNull();
      const r = await fetch(`${server.url}/v1/queues`, asOperator(server));
      expect(r.status).toBe(200);
      const body = (await r.json()) as { configured: boolean; queues: { name: string }[] };
      expect(body.configured).toBe(true);
      expect(body.queues.map((q) => q.name).sort()).toEqual([
        'compact',
        'expire',
        'rederive',
        'reembed',
        'reflect',
      ]);
      // Bull Board belongs to server mode (BullMQ): not mounted here.
      expect((await fetch(`${server.url}/admin/queues`, asOperator(server))).status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it('in server mode (KEEPGRAPH_REDIS_URL) leaves jobs to workers and mounts Bull Board', async () => {
    const config = loadServerConfig(
      { KEEPGRAPH_REDIS_URL: inject('redisUrl'), KEEPGRAPH_REDIS_PREFIX: `kgsrv-${Date.now()}` },
      { dataDir: join(dir, 'server-mode'), port: 0 },
    );
    const server = await startServer(config, { handleSignals: false, logger: false });
    try {
      expect(server.runtime.background).toBeNull();
      const q = (await (await fetch(`${server.url}/v1/queues`, asOperator(server))).json()) as {
        configured: boolean;
      };
      expect(q.configured).toBe(true);
      expect((await fetch(`${server.url}/admin/queues`, asOperator(server))).status).toBe(200);
      // Without a key, or with any key but an operator's, the dashboard is closed.
      expect((await fetch(`${server.url}/admin/queues`)).status).toBe(401);
      const analyst = await server.runtime.engine.createKey(
        { role: 'operator', owners: 'all', principal: 'test' },
        { name: 'analyst', role: 'analyst', owners: 'all' },
      );
      const asAnalyst = { headers: { authorization: `Bearer ${analyst.key}` } };
      expect((await fetch(`${server.url}/admin/queues`, asAnalyst)).status).toBe(403);
      expect((await fetch(`${server.url}/v1/queues`, asAnalyst)).status).toBe(403);
    } finally {
      await server.close();
    }
  });

  it('in server mode with Redis unreachable, keeps jobs in the outbox, answers /v1/queues with an error and closes promptly', async () => {
    const config = loadServerConfig(
      // Nothing listens on port 1.
      { KEEPGRAPH_REDIS_URL: 'redis://127.0.0.1:1', KEEPGRAPH_REDIS_PREFIX: `kgsrv-${Date.now()}` },
      { dataDir: join(dir, 'redis-down'), port: 0 },
    );
    const server = await startServer(config, { handleSignals: false, logger: false });
    let closed = false;
    try {
      // A job for the relay, whose round then waits on Redis until the producer gives up.
      const job = {
        name: 'reflect' as const,
        id: 'reflect:o-down',
        ownerId: 'o-down',
        payload: {},
      };
      await server.runtime.store.write({
        memories: [],
        supersede: [],
        sessionMessages: [],
        audit: [],
        jobs: [job],
      });
      const t0 = Date.now();
      const q = await fetch(`${server.url}/v1/queues`, asOperator(server));
      expect(q.status).toBeGreaterThanOrEqual(500);
      expect(Date.now() - t0).toBeLessThan(DEFAULT_PRODUCER_TIMEOUT_MS + 2000);
      expect((await server.runtime.store.outboxPending(10)).map((e) => e.job.id)).toEqual([job.id]);
      const t1 = Date.now();
      await server.close();
      closed = true;
      expect(Date.now() - t1).toBeLessThan(DEFAULT_PRODUCER_TIMEOUT_MS + 2000);
    } finally {
      if (!closed) await server.close();
    }
  });
});

function asOperator(server: { operatorKey?: { key: string } }): RequestInit {
  return { headers: { authorization: `Bearer ${server.operatorKey!.key}` } };
}
