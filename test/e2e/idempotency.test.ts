// Idempotency-Key over HTTP, on the README's defaults, on both stores: a
// write sent 100 times at once with one key stores one memory and every
// answer is the first one; the key with another body is a 409; a repeated
// correction or deletion is answered again rather than refused; a refusal
// is replayed as its status and code; the key route, whose answer holds a
// secret, refuses a key.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPLAYED_ERROR_MESSAGE } from '@keepgraph/core';
import { startKeepGraph, type KeepGraphProcess } from './keepgraph-process.ts';
import { storeEnv } from './stores.ts';
import { STORE_KINDS } from '@keepgraph/runtime';

for (const store of STORE_KINDS) {
  describe(`Idempotency-Key over HTTP (${store})`, () => {
    let dir: string;
    let kg: KeepGraphProcess;
    let userKey = '';
    const owner = `idem-${randomUUID()}`;

    async function send(method: string, path: string, body: unknown, key?: string, as = userKey) {
      const r = await fetch(`${kg.base}/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${as}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
          ...(key !== undefined && { 'idempotency-key': key }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      return {
        status: r.status,
        replayed: r.headers.get('idempotent-replayed'),
        json: (await r.json()) as any, // eslint-disable-line @typescript-eslint/no-explicit-any
      };
    }
    const count = async () =>
      (await send('GET', `/owners/${owner}/memories?limit=500`, undefined)).json.memories
        .length as number;

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), `keepgraph-idem-${store}-`));
      kg = await startKeepGraph(join(dir, 'data'), {
        KEEPGRAPH_RATE_LIMIT: '0',
        ...storeEnv(store),
      });
      const made = await send(
        'POST',
        '/keys',
        { name: 'idem user', role: 'user', owners: [owner] },
        undefined,
        kg.operatorKey,
      );
      expect(made.status).toBe(201);
      userKey = made.json.key as string;
    }, 180_000);

    afterAll(async () => {
      await kg?.stop();
      await rm(dir, { recursive: true, force: true });
    });

    it('stores one memory for 100 parallel repeats of a write, and answers each with the first answer', async () => {
      const key = randomUUID();
      const body = {
        kind: 'fact',
        text: 'The office moved to the third floor in June',
        origin: { sessionId: 'i1' },
      };
      const answers = await Promise.all(
        Array.from({ length: 100 }, () => send('POST', `/owners/${owner}/memories`, body, key)),
      );
      expect(new Set(answers.map((a) => a.status))).toEqual(new Set([201]));
      expect(new Set(answers.map((a) => a.json.memory.id)).size).toBe(1);
      expect(answers.filter((a) => a.replayed === 'false')).toHaveLength(1);
      expect(answers.filter((a) => a.replayed === 'true')).toHaveLength(99);
      expect(await count()).toBe(1);
      const audit = await send(
        'GET',
        `/audit?ownerId=${owner}&limit=1000`,
        undefined,
        undefined,
        kg.operatorKey,
      );
      expect(
        (audit.json.events as { type: string }[]).filter((e) => e.type === 'write'),
      ).toHaveLength(1);

      // The same key with another body: refused, nothing written.
      const other = await send(
        'POST',
        `/owners/${owner}/memories`,
        { ...body, text: 'The office moved to the fourth floor' },
        key,
      );
      expect(other.status).toBe(409);
      expect(other.json.error.code).toBe('idempotency_key_reused');
      expect(await count()).toBe(1);
      // Without a key, the same body is a new write.
      expect((await send('POST', `/owners/${owner}/memories`, body)).status).toBe(201);
      expect(await count()).toBe(2);
    }, 120_000);

    it('replays a correction and a deletion instead of refusing the repeat', async () => {
      const written = await send('POST', `/owners/${owner}/memories`, {
        kind: 'fact',
        text: 'The weekly review happens on Thursday afternoons',
        origin: { sessionId: 'i2' },
      });
      const id = written.json.memory.id as string;
      const before = await count();
      const fix = { text: 'The weekly review happens on Friday mornings', reason: 'outdated' };
      const key = randomUUID();
      const first = await send('PATCH', `/owners/${owner}/memories/${id}`, fix, key);
      const again = await send('PATCH', `/owners/${owner}/memories/${id}`, fix, key);
      expect(first.status).toBe(200);
      expect(again).toEqual({ ...first, replayed: 'true' });
      // Without the key, the repeat is refused: the version was superseded.
      expect((await send('PATCH', `/owners/${owner}/memories/${id}`, fix)).status).toBe(409);
      // The list shows current versions: the correction in place of the old one.
      expect(await count()).toBe(before);

      const del = randomUUID();
      const gone = await send(
        'DELETE',
        `/owners/${owner}/memories/${first.json.memory.id}`,
        undefined,
        del,
      );
      const goneAgain = await send(
        'DELETE',
        `/owners/${owner}/memories/${first.json.memory.id}`,
        undefined,
        del,
      );
      expect(gone.status).toBe(200);
      expect(goneAgain).toEqual({ ...gone, replayed: 'true' });
    }, 60_000);

    it('replays a refusal, refuses a malformed key, and takes no key where the answer holds a secret', async () => {
      const key = randomUUID();
      const refused = { kind: 'fact', text: 'ok', origin: { sessionId: 'i3' } };
      const first = await send('POST', `/owners/${owner}/memories`, refused, key);
      expect(first.status).toBe(422);
      // Its status and code: the message, which may quote the input, is not kept.
      expect(await send('POST', `/owners/${owner}/memories`, refused, key)).toEqual({
        status: 422,
        replayed: 'true',
        json: { error: { code: first.json.error.code, message: REPLAYED_ERROR_MESSAGE } },
      });

      // A refusal of the owner named is not kept: judged again on a retry.
      const elsewhere = `/owners/not-${owner}/memories`;
      const outKey = randomUUID();
      const out = await send('POST', elsewhere, refused, outKey);
      expect([out.status, out.replayed]).toEqual([403, null]);
      const outAgain = await send('POST', elsewhere, refused, outKey);
      expect([outAgain.status, outAgain.replayed]).toEqual([403, null]);

      const bad = await send('POST', `/owners/${owner}/memories`, refused, 'has spaces in it');
      expect(bad.status).toBe(400);
      expect(bad.json.error.code).toBe('invalid_input');
      const keys = await send(
        'POST',
        '/keys',
        { name: 'x', role: 'user', owners: [owner] },
        randomUUID(),
        kg.operatorKey,
      );
      expect(keys.status).toBe(400);
      expect(keys.json.error.code).toBe('invalid_input');
      const list = await send('GET', '/keys', undefined, undefined, kg.operatorKey);
      expect((list.json.keys as { name: string }[]).map((k) => k.name)).not.toContain('x');
    }, 60_000);
  });
}
