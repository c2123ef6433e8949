// The client's retry, timeout and abort policy, against a small HTTP server
// on 127.0.0.1 that answers as a busy KeepGraph would (429 with
// Retry-After, 503), so each case is exact and fast. The client against a
// real `keepgraph start` is test/e2e/client.test.ts.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeepGraphClient, KeepGraphError } from '../src/index.ts';

let server: Server;
let base: string;
let script: ((req: IncomingMessage) => {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  delayMs?: number;
})[] = [];
const seen: IncomingMessage[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req);
    const step = script.shift()?.(req) ?? { status: 500 };
    setTimeout(() => {
      res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
      res.end(JSON.stringify(step.body ?? {}));
    }, step.delayMs ?? 0);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const client = (extra = {}) =>
  new KeepGraphClient({ baseUrl: base, apiKey: 'kgk_test', backoffMs: 10, ...extra });
const page = { ownerId: 'o', memories: [], next: null };

describe('retries', () => {
  it('waits as Retry-After says after a 429, then answers', async () => {
    seen.length = 0;
    script = [
      () => ({
        status: 429,
        headers: { 'retry-after': '1' },
        body: { error: { code: 'rate_limited', message: 'slow down' } },
      }),
      () => ({ status: 200, body: page }),
    ];
    const t0 = Date.now();
    expect(await client().listMemories('o')).toEqual(page);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
    expect(seen).toHaveLength(2);
  });

  it('retries a write after a 503 under the same Idempotency-Key, so it cannot write twice', async () => {
    seen.length = 0;
    script = [
      () => ({ status: 503 }),
      () => ({ status: 201, body: { memory: { id: 'm1' }, superseded: null } }),
    ];
    await client().remember('o', {
      kind: 'fact',
      text: 'a fact worth keeping',
      origin: { sessionId: 's' },
    });
    const keys = seen.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
  });

  it('gives up after the retries with the last error, typed with its code', async () => {
    script = Array.from({ length: 3 }, () => () => ({
      status: 503,
      body: { error: { code: 'store_unavailable', message: 'down' } },
    }));
    const err = await client({ retries: 2 })
      .get('o', 'm')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KeepGraphError);
    expect(err).toMatchObject({ code: 'store_unavailable', status: 503 });
  });

  it('does not retry a 4xx: its code, status and details come back at once', async () => {
    seen.length = 0;
    script = [
      () => ({
        status: 403,
        body: { error: { code: 'owner_out_of_scope', message: 'no', details: { ownerId: 'x' } } },
      }),
    ];
    const err = await client()
      .get('x', 'm')
      .catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'owner_out_of_scope',
      status: 403,
      details: { ownerId: 'x' },
    });
    expect(seen).toHaveLength(1);
  });

  it('times out an attempt, and honours an AbortSignal', async () => {
    script = Array.from({ length: 2 }, () => () => ({ status: 200, body: page, delayMs: 500 }));
    const slow = await client({ timeoutMs: 100, retries: 1 })
      .listMemories('o')
      .catch((e: unknown) => e);
    expect(slow).toMatchObject({ code: 'timeout', status: 0 });
    script = [() => ({ status: 200, body: page, delayMs: 500 })];
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const aborted = await client()
      .listMemories('o', {}, { signal: ac.signal })
      .catch((e: unknown) => e);
    expect(aborted).toMatchObject({ code: 'aborted' });
    await new Promise((r) => setTimeout(r, 500));
  });
});
