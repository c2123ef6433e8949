// Operators see the job queues: GET /v1/queues and Bull Board at
// /admin/queues, over BullMQ queues in a real Redis (started by the test
// setup) under a prefix of this run's own. Other roles get 403 on both, and a
// server without a job runner says so instead of failing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { JOB_NAMES } from '@keepgraph/core/ports';
import type { EmbeddedRuntime } from '@keepgraph/runtime';
import { buildApp } from '../src/app.ts';
import { BULL_BOARD_PATH } from '../src/plugins/bull-board.ts';
import { scratchQueues, scratchRuntime, type ScratchQueues } from './helpers.ts';

let runtime: EmbeddedRuntime;
let queues: ScratchQueues;
let operator: FastifyInstance;
let user: FastifyInstance;
let bare: FastifyInstance;

beforeAll(async () => {
  runtime = await scratchRuntime('keepgraph-queues-');
  queues = await scratchQueues('kgtest');
  const app = (role: 'operator' | 'user', withQueues = true) =>
    buildApp({
      engine: runtime.engine,
      auth: { trustedCaller: { role, owners: 'all', principal: `test-${role}` } },
      ...(withQueues && { queues: queues.forApp }),
    });
  operator = app('operator');
  user = app('user');
  bare = app('operator', false);
  await Promise.all([operator.ready(), user.ready(), bare.ready()]);
  await queues.jobs.enqueue([
    { name: 'reflect', id: 'reflect:owner-q', ownerId: 'owner-q', payload: {} },
  ]);
});

afterAll(async () => {
  await Promise.all([operator, user, bare].map((a) => a?.close()));
  await queues?.close();
  await runtime?.close();
});

describe('GET /v1/queues', () => {
  it('gives an operator every queue with its counts', async () => {
    const r = await operator.inject({ method: 'GET', url: '/v1/queues' });
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body.configured).toBe(true);
    expect(body.queues.map((q: { name: string }) => q.name)).toEqual([...JOB_NAMES]);
    expect(body.queues.find((q: { name: string }) => q.name === 'reflect')).toEqual({
      name: 'reflect',
      waiting: 1,
      active: 0,
      delayed: 0,
      failed: 0,
      completed: 0,
      durationMs: { p50: null, p95: null, samples: 0 },
    });
  });

  it('refuses other roles with 403 forbidden_role', async () => {
    const r = await user.inject({ method: 'GET', url: '/v1/queues' });
    expect(r.statusCode).toBe(403);
    expect(r.json().error.code).toBe('forbidden_role');
  });

  it('says no runner is configured when the server has none', async () => {
    const r = await bare.inject({ method: 'GET', url: '/v1/queues' });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ configured: false, queues: [] });
  });

  it('is documented in the OpenAPI document, without Bull Board\u2019s routes', async () => {
    const r = await operator.inject({ method: 'GET', url: '/openapi.json' });
    expect(r.statusCode).toBe(200);
    const paths = Object.keys(r.json().paths);
    expect(paths).toContain('/v1/queues');
    expect(paths.filter((p) => p.startsWith(BULL_BOARD_PATH))).toEqual([]);
  });
});

describe('Bull Board at /admin/queues', () => {
  it('serves an operator the dashboard page and its API over the five queues', async () => {
    const page = await operator.inject({ method: 'GET', url: BULL_BOARD_PATH });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    // Its links are relative to this base, so the mount point must be right.
    expect(page.body).toContain(`<base href="${BULL_BOARD_PATH}/"`);
    const icon = await operator.inject({
      method: 'GET',
      url: `${BULL_BOARD_PATH}/static/favicon-32x32.png`,
    });
    expect(icon.statusCode).toBe(200);

    const api = await operator.inject({ method: 'GET', url: `${BULL_BOARD_PATH}/api/queues` });
    expect(api.statusCode).toBe(200);
    const names = (api.json().queues as { name: string }[]).map((q) => q.name);
    expect(names.sort()).toEqual([...JOB_NAMES].sort());
  });

  it('lets an operator act on a queue through its API', async () => {
    const q = queues.jobs.queues.get('compact')!;
    const url = `${BULL_BOARD_PATH}/api/queues/compact`;
    expect((await operator.inject({ method: 'PUT', url: `${url}/pause` })).statusCode).toBe(200);
    expect(await q.isPaused()).toBe(true);
    expect((await operator.inject({ method: 'PUT', url: `${url}/resume` })).statusCode).toBe(200);
    expect(await q.isPaused()).toBe(false);
  });

  it('refuses other roles with 403 forbidden_role, page, API and static files alike', async () => {
    for (const url of [
      BULL_BOARD_PATH,
      `${BULL_BOARD_PATH}/`,
      `${BULL_BOARD_PATH}/api/queues`,
      `${BULL_BOARD_PATH}/queue/reflect`,
      `${BULL_BOARD_PATH}/static/favicon-32x32.png`,
    ]) {
      const r = await user.inject({ method: 'GET', url });
      expect(r.statusCode, url).toBe(403);
      expect(r.headers['content-type'], url).toMatch(/application\/json/);
      expect(r.json().error.code, url).toBe('forbidden_role');
    }
    const pause = await user.inject({
      method: 'PUT',
      url: `${BULL_BOARD_PATH}/api/queues/reflect/pause`,
    });
    expect(pause.statusCode).toBe(403);
    expect(await queues.jobs.queues.get('reflect')!.isPaused()).toBe(false);
  });

  it('is not mounted without BullMQ queues', async () => {
    const r = await bare.inject({ method: 'GET', url: BULL_BOARD_PATH });
    expect(r.statusCode).toBe(404);
    expect(r.json().error.code).toBe('not_found');
  });
});
