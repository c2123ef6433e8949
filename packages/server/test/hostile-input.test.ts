// Hostile requests the HTTP fuzz (test/reliability/fuzz-http.test.ts) found
// answered with a 500, each kept here as it was sent. Each must get a
// typed 4xx and store nothing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTransformersEmbedder } from '@keepgraph/embedder';
import { openEmbeddedRuntime, type EmbeddedRuntime } from '@keepgraph/runtime';
import { keyedClients, type KeyedClient } from './keyed-clients.ts';

let dir: string;
let runtime: EmbeddedRuntime;
let app: FastifyInstance;
let operator: KeyedClient;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keepgraph-hostile-'));
  const embedder = await createTransformersEmbedder();
  runtime = await openEmbeddedRuntime({ dataDir: dir, embedder, sweepIntervalMs: null });
  ({
    app,
    clients: { operator },
  } = await keyedClients(runtime.engine, ['operator']));
});

afterAll(async () => {
  await app?.close();
  await runtime?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const owner = () => `owner-${randomUUID()}`;
const nestedText = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

describe('deeply nested JSON', () => {
  // 100,000 levels fit in 600 KB of JSON; the body limits let 256 KiB and
  // more through, and JSON.parse takes any depth.
  const cases = [
    [
      'a memory origin',
      'memories',
      `{"kind":"fact","text":"a deep one","origin":${nestedText(40_000)}}`,
    ],
    ['recall filter', 'recall', `{"query":"anything","filter":${nestedText(40_000)}}`],
    ['import body', 'import', `{"lines":${nestedText(40_000)}}`],
    ['batch item', 'memories:batch', `{"memories":[${nestedText(40_000)}]}`],
  ] as const;

  for (const [what, route, payload] of cases)
    for (const idempotent of [false, true])
      it(`${what}${idempotent ? ', with an Idempotency-Key,' : ''} -> 400 invalid_input, nothing stored`, async () => {
        const o = owner();
        const r = await operator.inject({
          method: 'POST',
          url: `/v1/owners/${o}/${route}`,
          headers: {
            'content-type': 'application/json',
            ...(idempotent && { 'idempotency-key': `deep-${randomUUID()}` }),
          },
          payload,
        });
        expect(r.statusCode, r.body.slice(0, 300)).toBe(400);
        expect(r.json()).toMatchObject({
          error: { code: 'invalid_input', message: expect.stringContaining('nested deeper than') },
        });
        expect(await runtime.store.listIds(o)).toEqual([]);
      });
});

describe('import line numbers', () => {
  it('a first line whose numbers would pass 2^53 -> 400 invalid_input, nothing stored', async () => {
    const o = owner();
    const line = JSON.stringify({
      kind: 'fact',
      text: 'a line far down the file',
      origin: { sessionId: 's' },
    });
    const r = await operator.inject({
      method: 'POST',
      url: `/v1/owners/${o}/import`,
      payload: { lines: [line, '{"kind":"fact"}'], firstLine: Number.MAX_SAFE_INTEGER },
    });
    expect(r.statusCode, r.body.slice(0, 300)).toBe(400);
    expect(r.json()).toMatchObject({ error: { code: 'invalid_input' } });
    expect(await runtime.store.listIds(o)).toEqual([]);
  });

  it('the last first line allowed still reports every line by a safe number', async () => {
    const o = owner();
    const firstLine = Number.MAX_SAFE_INTEGER - 10_000;
    const r = await operator.inject({
      method: 'POST',
      url: `/v1/owners/${o}/import`,
      payload: { lines: ['{"kind":"fact"}'], firstLine },
    });
    expect(r.statusCode, r.body.slice(0, 300)).toBe(200);
    expect(r.json().failures).toMatchObject([{ line: firstLine, code: 'invalid_input' }]);
  });
});
