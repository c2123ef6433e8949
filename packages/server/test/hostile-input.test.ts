// Hostile requests the HTTP fuzz (test/reliability/fuzz-http.test.ts) found
// answered with a 500 or with an untyped error, each kept here as it was
// sent: over inject() where Fastify reads the request, over a real socket
// where Node's HTTP parser does. Each must get a typed 4xx and store nothing.
import { connect } from 'node:net';
import { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTransformersEmbedder } from '@keepgraph/embedder';
import type { EmbeddedRuntime } from '@keepgraph/runtime';
import { answerClientError } from '../src/error-handler.ts';
import { scratchRuntime } from './helpers.ts';
import { keyedClients, type KeyedClient } from './keyed-clients.ts';

let runtime: EmbeddedRuntime;
let app: FastifyInstance;
let operator: KeyedClient;

beforeAll(async () => {
  runtime = await scratchRuntime('keepgraph-hostile-', {
    embedder: await createTransformersEmbedder(),
  });
  ({
    app,
    clients: { operator },
  } = await keyedClients(runtime.engine, ['operator']));
});

afterAll(async () => {
  await app?.close();
  await runtime?.close();
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

describe('requests Node refuses before any route', () => {
  let port = 0;
  beforeAll(async () => {
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
  });

  /** Send raw bytes; the first answer's status and body. */
  const raw = (bytes: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port });
      let data = '';
      socket.on('data', (d: Buffer) => (data += d.toString('latin1')));
      socket.on('error', reject);
      socket.on('close', () => {
        const [head = '', ...rest] = data.split('\r\n\r\n');
        resolve({
          status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0),
          body: rest.join('\r\n\r\n'),
        });
      });
      socket.end(bytes);
    });
  const body = '{"kind":"fact","text":"refused on the wire","origin":{"sessionId":"s"}}';
  const head = (o: string) =>
    `POST /v1/owners/${o}/memories HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${operator.key}\r\nContent-Type: application/json\r\n`;

  const cases: [string, (o: string) => string][] = [
    [
      'Content-Length and Transfer-Encoding together',
      (o) =>
        `${head(o)}Content-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n\r\n${body}`,
    ],
    [
      'two Content-Lengths that differ',
      (o) =>
        `${head(o)}Content-Length: ${body.length}\r\nContent-Length: ${body.length + 1}\r\n\r\n${body}`,
    ],
    [
      'a malformed chunk',
      (o) => `${head(o)}Transfer-Encoding: chunked\r\n\r\nzz\r\n${body}\r\n0\r\n\r\n`,
    ],
    [
      'a NUL in the request line',
      (o) =>
        head(o).replace('POST ', 'POST\u0000 ') + `Content-Length: ${body.length}\r\n\r\n${body}`,
    ],
    [
      'a body shorter than its Content-Length',
      (o) => `${head(o)}Content-Length: ${body.length + 50}\r\n\r\n${body}`,
    ],
  ];
  for (const [what, request] of cases)
    it(`${what} -> 400 invalid_input in the house format, nothing stored`, async () => {
      const o = owner();
      const r = await raw(request(o));
      expect(r.status, r.body).toBe(400);
      expect(JSON.parse(r.body)).toMatchObject({
        error: { code: 'invalid_input', message: expect.any(String) },
      });
      expect(await runtime.store.listIds(o)).toEqual([]);
    });

  // Node's timeouts are checked every 30 s, too slow to wait for here: the
  // answer to its timeout error is read off a socket of our own.
  it('a request that did not arrive in time -> 408 request_timeout, connection closed', () => {
    let written = '';
    const socket = new Duplex({
      read() {},
      write(chunk: Buffer, _encoding, done) {
        written += chunk.toString('latin1');
        done();
      },
    });
    socket.on('error', () => {});
    const timeout = Object.assign(new Error('Request timeout'), {
      code: 'ERR_HTTP_REQUEST_TIMEOUT',
    });
    answerClientError(timeout, socket);
    const [head = '', answer = ''] = written.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(head).toContain('Connection: close');
    expect(JSON.parse(answer)).toMatchObject({
      error: { code: 'request_timeout', message: expect.any(String) },
    });
    expect(socket.destroyed).toBe(true);
  });

  it('headers past the limit -> 431 headers_too_large in the house format, nothing stored', async () => {
    const o = owner();
    const r = await raw(
      `${head(o)}X-Filler: ${'h'.repeat(20_000)}\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(r.status, r.body).toBe(431);
    expect(JSON.parse(r.body)).toMatchObject({
      error: { code: 'headers_too_large', message: expect.any(String) },
    });
    expect(await runtime.store.listIds(o)).toEqual([]);
  });
});
