// Correcting a memory through the public interface, on the README's
// defaults (background jobs on, the default policy), on both stores: an
// episode reflection drew a preference from is corrected; the old version is
// no longer recalled, the preference drawn from it is gone and drawn again
// from the correction by a job, lineage shows both versions, and the audit
// log names who corrected it and why. Then the refusals, each of which
// changes nothing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKeepGraph, type KeepGraphProcess } from './keepgraph-process.ts';
import { storeEnv } from './stores.ts';
import { STORE_KINDS } from '@keepgraph/runtime';

interface Reply {
  status: number;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

for (const store of STORE_KINDS) {
  describe(`correcting a memory over HTTP (${store})`, () => {
    let dir: string;
    let kg: KeepGraphProcess;
    const owner = `correct-${randomUUID()}`;
    const keys: Record<'operator' | 'user' | 'agent' | 'analyst' | 'stranger', string> = {
      operator: '',
      user: '',
      agent: '',
      analyst: '',
      stranger: '',
    };

    async function call(
      as: keyof typeof keys,
      method: string,
      path: string,
      body?: unknown,
    ): Promise<Reply> {
      const r = await fetch(`${kg.base}/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${keys[as]}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      return { status: r.status, json: await r.json() };
    }

    /** Write a memory with the user key; the memory written. */
    const remember = async (memory: Record<string, unknown>) => {
      const r = await call('user', 'POST', `/owners/${owner}/memories`, memory);
      expect(r.status, JSON.stringify(r.json)).toBe(201);
      return r.json.memory as { id: string; text: string };
    };

    const memories = async (query = '') =>
      (await call('operator', 'GET', `/owners/${owner}/memories?limit=500${query}`)).json
        .memories as { id: string; kind: string; text: string; derivedFrom: string[] }[];

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), `keepgraph-correct-${store}-`));
      kg = await startKeepGraph(join(dir, 'data'), {
        KEEPGRAPH_RATE_LIMIT: '0',
        ...storeEnv(store),
      });
      keys.operator = kg.operatorKey;
      for (const [role, owners] of [
        ['user', [owner]],
        ['agent', [owner]],
        ['analyst', [owner]],
        ['stranger', ['somebody-else']],
      ] as const) {
        const made = await call('operator', 'POST', '/keys', {
          name: `correct ${role}`,
          role: role === 'stranger' ? 'user' : role,
          owners,
        });
        expect(made.status).toBe(201);
        keys[role] = made.json.key as string;
      }
    }, 180_000);

    afterAll(async () => {
      await kg?.stop();
      await rm(dir, { recursive: true, force: true });
    });

    it('supersedes the old version, re-derives what was drawn from it, shows both versions and audits who', async () => {
      const { id: v1 } = await remember({
        kind: 'episode',
        text: "I'd rather not work with finance clients after the last project",
        origin: { sessionId: 's1', turn: '1' },
      });
      // Negative feedback: the shipped reflection runs at once, in the background.
      const drawn = await until('the preference reflected from the episode', async () =>
        (await memories('&kind=preference')).find((m) => m.derivedFrom.includes(v1)),
      );
      expect(drawn.text).toMatch(/finance clients/);

      const corrected = await call('user', 'PATCH', `/owners/${owner}/memories/${v1}`, {
        text: "I'd rather not work with healthcare clients after the last project",
        reason: 'incorrect',
      });
      expect(corrected.status).toBe(200);
      const v2 = corrected.json.memory.id as string;
      expect(corrected.json).toMatchObject({
        corrected: v1,
        superseded: true,
        rederiving: [drawn.id],
      });
      expect(corrected.json.memory).toMatchObject({
        kind: 'episode',
        supersedes: v1,
        authority: 'user',
        origin: { sessionId: 's1', turn: '1' },
      });
      expect(corrected.json.receipt.deletedMemoryIds).toEqual([drawn.id]);

      // The old version is not recalled; the new one is.
      const recalled = await call('user', 'POST', `/owners/${owner}/recall`, {
        query: 'which clients would they rather not work with?',
      });
      expect(recalled.status).toBe(200);
      const ids = (recalled.json.results as { memory: { id: string } }[]).map((r) => r.memory.id);
      expect(ids).toContain(v2);
      expect(ids).not.toContain(v1);
      expect(ids).not.toContain(drawn.id);
      expect((await call('user', 'GET', `/owners/${owner}/memories/${drawn.id}`)).status).toBe(404);

      // The preference is drawn again, from the correction.
      const redrawn = await until('the preference re-derived from the correction', async () =>
        (await memories('&kind=preference')).find((m) => m.derivedFrom.includes(v2)),
      );
      expect(redrawn.text).toMatch(/healthcare clients/);
      expect((await memories('&kind=preference')).map((m) => m.id)).toEqual([redrawn.id]);

      // Lineage: preference -> correction -> the version it superseded.
      const lineage = await call(
        'analyst',
        'GET',
        `/owners/${owner}/memories/${redrawn.id}/lineage`,
      );
      expect(lineage.status).toBe(200);
      const nodes = (lineage.json.nodes as { key: string }[]).map((n) => n.key);
      expect(nodes).toEqual(expect.arrayContaining([redrawn.id, v2, v1]));
      expect(lineage.json.edges).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            source: redrawn.id,
            target: v2,
            attributes: { type: 'DERIVED_FROM' },
          }),
          expect.objectContaining({ source: v2, target: v1, attributes: { type: 'SUPERSEDES' } }),
        ]),
      );

      // The audit names the correction, its principal and its reason (a code, no text).
      const audit = await call('analyst', 'GET', `/audit?ownerId=${owner}&limit=1000`);
      const userKey = (await call('operator', 'GET', '/keys')).json.keys.find(
        (k: { name: string }) => k.name === 'correct user',
      );
      const event = (audit.json.events as { type: string }[]).find((e) => e.type === 'corrected');
      expect(event).toMatchObject({
        actor: `key:${userKey.id}`,
        role: 'user',
        reason: 'incorrect',
        memoryIds: [v1, v2],
      });
      expect(JSON.stringify(event)).not.toMatch(/healthcare|finance/);
    }, 180_000);

    it('keeps a lower authority correction beside a higher one, flagged, and re-derives nothing', async () => {
      const { id } = await remember({
        kind: 'fact',
        text: 'The quarterly report is due on the 15th of each quarter',
        origin: { sessionId: 's2' },
      });
      const evidence = await remember({
        kind: 'episode',
        text: 'Someone mentioned in passing that reports might be due on the 20th now',
        origin: { sessionId: 's2', turn: '2' },
      });
      // An agent's correction is inferred: it names what it was inferred from.
      const r = await call('agent', 'PATCH', `/owners/${owner}/memories/${id}`, {
        text: 'The quarterly report is due on the 20th of each quarter',
        reason: 'outdated',
        derivedFrom: [evidence.id],
      });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({
        corrected: id,
        superseded: false,
        rederiving: [],
        receipt: null,
      });
      expect(r.json.memory).toMatchObject({
        conflict: true,
        authority: 'agent_inferred',
        supersedes: null,
      });
      const old = await call('user', 'GET', `/owners/${owner}/memories/${id}`);
      expect(old.json).toMatchObject({ supersededBy: null, conflict: false });
    }, 60_000);

    it('refuses bad corrections with a code and writes nothing', async () => {
      const fact = await remember({
        kind: 'fact',
        text: 'The team standup is at nine in the morning on weekdays',
        origin: { sessionId: 's3' },
      });
      const id = fact.id;
      const before = (await memories()).length;
      const cases: [keyof typeof keys, string, unknown, number, string][] = [
        ['user', id, { text: 'The standup moved to ten' }, 400, 'invalid_input'],
        ['user', id, { text: 'The standup moved to ten', reason: 'whim' }, 400, 'invalid_input'],
        ['user', id, { text: '', reason: 'incorrect' }, 400, 'invalid_input'],
        ['user', id, { text: 'x', reason: 'incorrect', kind: 'rule' }, 400, 'invalid_input'],
        // A correction is not derived from the version it replaces.
        [
          'user',
          id,
          { text: 'The standup moved to ten', reason: 'incorrect', derivedFrom: [id] },
          400,
          'invalid_input',
        ],
        [
          'user',
          id,
          { text: 'The standup moved to ten', reason: 'incorrect', derivedFrom: [randomUUID()] },
          422,
          'refused_missing_sources',
        ],
        [
          'user',
          id,
          {
            text: `The standup bot token is ghp_${randomUUID().replaceAll('-', '')}Wxyz`,
            reason: 'incorrect',
          },
          422,
          'refused_secret',
        ],
        [
          'user',
          id,
          { text: 'The standup moved to ten', reason: 'incorrect', authority: 'operator' },
          403,
          'authority_exceeds_role',
        ],
        [
          'user',
          randomUUID(),
          { text: 'The standup moved to ten', reason: 'incorrect' },
          404,
          'not_found',
        ],
        [
          'analyst',
          id,
          { text: 'The standup moved to ten', reason: 'incorrect' },
          403,
          'forbidden_role',
        ],
        [
          'stranger',
          id,
          { text: 'The standup moved to ten', reason: 'incorrect' },
          403,
          'owner_out_of_scope',
        ],
      ];
      for (const [as, target, body, status, code] of cases) {
        const r = await call(as, 'PATCH', `/owners/${owner}/memories/${target}`, body);
        expect({ body, status: r.status, code: r.json.error?.code }).toEqual({
          body,
          status,
          code,
        });
      }
      expect((await memories()).length).toBe(before);
      const stored = await call('user', 'GET', `/owners/${owner}/memories/${id}`);
      expect(stored.json).toMatchObject({ supersededBy: null, text: fact.text });

      // A superseded version is not corrected again: the current one is.
      const first = await call('user', 'PATCH', `/owners/${owner}/memories/${id}`, {
        text: 'The team standup is at ten in the morning on weekdays',
        reason: 'outdated',
      });
      expect(first.status).toBe(200);
      const again = await call('user', 'PATCH', `/owners/${owner}/memories/${id}`, {
        text: 'The team standup is at eleven in the morning on weekdays',
        reason: 'outdated',
      });
      expect(again.status).toBe(409);
      expect(again.json.error).toMatchObject({
        code: 'conflict',
        details: { current: first.json.memory.id },
      });
    }, 60_000);
  });
}
