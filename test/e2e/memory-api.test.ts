// The owner-data routes over HTTP against `keepgraph start` on both stores
// (the README's defaults): every list filter from the query string, the
// same filters on recall, a session's messages and its forgetting after a
// dry run, the streamed export imported back; bad input of each is a 4xx
// with a code and changes nothing. (Out-of-scope owners on every route: the
// authorization matrix.)
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
  body: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

for (const store of STORE_KINDS) {
  describe(`the owner-data routes over HTTP (${store})`, () => {
    let dir: string;
    let kg: KeepGraphProcess;
    let userKey = '';
    let toolKey = '';
    const owner = `api-${randomUUID()}`;
    const o = () => `/owners/${owner}`;

    async function call(
      method: string,
      path: string,
      body?: unknown,
      as = userKey,
    ): Promise<Reply> {
      const r = await fetch(`${kg.base}/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${as}`,
          ...(body !== undefined && {
            'content-type': typeof body === 'string' ? 'application/x-ndjson' : 'application/json',
          }),
        },
        ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      const text = await r.text();
      let json: unknown = null;
      try {
        json = JSON.parse(text);
      } catch {
        // JSON lines, or empty
      }
      return { status: r.status, body: text, json };
    }
    const idsOf = (r: Reply) => (r.json.memories as { id: string }[]).map((m) => m.id).sort();
    const held = async () => idsOf(await call('GET', `${o()}/memories?limit=500`));

    const ids: Record<string, string> = {};
    let mark = '';

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), `keepgraph-api-${store}-`));
      kg = await startKeepGraph(join(dir, 'data'), {
        KEEPGRAPH_RATE_LIMIT: '0',
        ...storeEnv(store),
      });
      for (const role of ['user', 'tool'] as const) {
        const made = await call(
          'POST',
          '/keys',
          { name: `api ${role}`, role, owners: [owner] },
          kg.operatorKey,
        );
        expect(made.status).toBe(201);
        if (role === 'user') userKey = made.json.key;
        else toolKey = made.json.key;
      }
      const write = async (name: string, body: unknown, as = userKey) => {
        const r = await call('POST', `${o()}/memories`, body, as);
        expect(r.status, r.body).toBe(201);
        ids[name] = r.json.memory.id;
      };
      await write('trip', {
        kind: 'episode',
        text: 'The user booked a train to Porto for the design conference',
        origin: { sessionId: 'S-trip', turn: '1' },
        tags: ['travel'],
      });
      await new Promise((r) => setTimeout(r, 20));
      mark = new Date().toISOString();
      await new Promise((r) => setTimeout(r, 20));
      await write(
        'train',
        {
          kind: 'fact',
          text: 'The train to Porto leaves at 08:15 from platform 4',
          origin: { tool: { name: 'rail' } },
        },
        toolKey,
      );
      await write('venue', {
        kind: 'fact',
        text: 'The Porto conference venue is next to the train station',
        origin: { source: { kind: 'url', uri: 'https://conf.example/venue' } },
        ttlSeconds: 2 * 86_400,
      });
      await write('rule', {
        kind: 'rule',
        authority: 'agent_inferred',
        text: 'The user likes travelling to conferences by train',
        derivedFrom: [ids.trip],
        origin: { extractor: { name: 'manual', version: '1' } },
      });
      const appended = await call('POST', `${o()}/sessions/S-trip/messages`, {
        messages: [{ role: 'user', text: 'Book me the early train to Porto please' }],
      });
      expect(appended.status).toBe(200);
    }, 180_000);

    afterAll(async () => {
      await kg?.stop();
      await rm(dir, { recursive: true, force: true });
    });

    it('lists with each filter from the query string, and refuses bad ones', async () => {
      const list = async (q: string) => {
        const r = await call('GET', `${o()}/memories?${q}`);
        expect(r.status, `${q}: ${r.body}`).toBe(200);
        return idsOf(r);
      };
      const sorted = (...names: string[]) => names.map((n) => ids[n]!).sort();
      expect(await list('')).toEqual(sorted('trip', 'train', 'venue', 'rule'));
      expect(await list('kind=fact')).toEqual(sorted('train', 'venue'));
      expect(await list('kind=rule,episode')).toEqual(sorted('trip', 'rule'));
      expect(await list('authority=tool')).toEqual(sorted('train'));
      expect(await list('tag=travel')).toEqual(sorted('trip'));
      // The rule inherits the episode's origin: a session filter finds both.
      expect(await list('sessionId=S-trip')).toEqual(sorted('trip', 'rule'));
      expect(await list('tool=rail')).toEqual(sorted('train'));
      expect(await list(`sourceUri=${encodeURIComponent('https://conf.example/venue')}`)).toEqual(
        sorted('venue'),
      );
      expect(await list(`createdAfter=${mark}`)).toEqual(sorted('train', 'venue', 'rule'));
      expect(await list(`createdBefore=${mark}`)).toEqual(sorted('trip'));
      expect(await list(`observedAfter=${mark}`)).toEqual(sorted('train', 'venue', 'rule'));
      expect(await list(`observedBefore=${mark}`)).toEqual(sorted('trip'));
      const soon = new Date(Date.now() + 3 * 86_400_000).toISOString();
      expect(await list(`expiresBefore=${soon}`)).toEqual(sorted('venue'));
      expect(await list('derived=true')).toEqual(sorted('rule'));
      expect(await list('derived=false&conflict=false')).toEqual(sorted('trip', 'train', 'venue'));
      expect(await list('conflict=true')).toEqual([]);
      const first = await call('GET', `${o()}/memories?limit=3`);
      const rest = await call('GET', `${o()}/memories?limit=3&after=${first.json.next}`);
      expect([...idsOf(first), ...idsOf(rest)].sort()).toEqual(await list(''));
      for (const [q, status, code] of [
        ['kind=gossip', 400, 'invalid_input'],
        ['authority=boss', 400, 'invalid_input'],
        ['derived=maybe', 400, 'invalid_input'],
        ['createdAfter=yesterday', 400, 'invalid_input'],
        ['limit=501', 400, 'invalid_input'],
        ['includeSuperseded=true', 403, 'forbidden_role'],
      ] as const) {
        const r = await call('GET', `${o()}/memories?${q}`);
        expect([q, r.status, r.json.error?.code]).toEqual([q, status, code]);
      }
    });

    it('recalls with the same filters, and refuses bad ones', async () => {
      const recall = async (filter: unknown) => {
        const r = await call('POST', `${o()}/recall`, {
          query: 'train to Porto',
          topK: 10,
          filter,
        });
        return r.status === 200
          ? (r.json.results as { memory: { id: string } }[]).map((h) => h.memory.id).sort()
          : r.json.error.code;
      };
      expect(await recall({ tool: 'rail' })).toEqual([ids.train]);
      expect(await recall({ tag: 'travel' })).toEqual([ids.trip]);
      expect(await recall({ authorities: ['agent_inferred'] })).toEqual([ids.rule]);
      expect(await recall({ kinds: ['fact'], createdAfter: mark })).toEqual(
        [ids.train, ids.venue].sort(),
      );
      expect(await recall({ includeSuperseded: true })).toBe('invalid_input');
      expect(await recall({ colour: 'blue' })).toBe('invalid_input');
    });

    it("reads a session's messages and forgets it after a dry run; a misspelt dry run deletes nothing", async () => {
      const before = await held();
      const read = await call('GET', `${o()}/sessions/S-trip/messages`);
      expect(read.json.messages.map((m: { text: string }) => m.text)).toEqual([
        'Book me the early train to Porto please',
      ]);
      expect((await call('GET', `${o()}/sessions/S-none/messages`)).status).toBe(404);
      const typo = await call('POST', `${o()}/sessions/S-trip/forget`, { dry_run: true });
      expect([typo.status, typo.json.error.code]).toEqual([400, 'invalid_input']);
      const dry = await call('POST', `${o()}/sessions/S-trip/forget`, { dryRun: true });
      expect(dry.json).toMatchObject({ dryRun: true, observed: [ids.trip], sessionMessages: 1 });
      expect(dry.json.memoryIds).toEqual([ids.trip, ids.rule].sort());
      expect(await held()).toEqual(before);
      const asTool = await call('POST', `${o()}/sessions/S-trip/forget`, {}, toolKey);
      expect([asTool.status, asTool.json.error.code]).toEqual([403, 'forbidden_role']);

      // Exported first, so the next test can import what this one forgets.
      exported = (await call('GET', `${o()}/export.jsonl`)).body;
      const done = await call('POST', `${o()}/sessions/S-trip/forget`, {});
      expect(done.json).toMatchObject({ dryRun: false, sessionMessages: 1 });
      expect([...done.json.memoryIds].sort()).toEqual(dry.json.memoryIds);
      expect(await held()).toEqual(before.filter((id) => !dry.json.memoryIds.includes(id)));
      expect((await call('GET', `${o()}/sessions/S-trip/messages`)).status).toBe(404);
    });

    let exported = '';
    it('streams the export as JSON lines and imports it back through the gate', async () => {
      const lines = exported
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as { id: string; derivedFrom: string[] });
      expect(lines.map((m) => m.id).sort()).toEqual(
        [ids.trip, ids.train, ids.venue, ids.rule].sort(),
      );
      const to = `api-copy-${randomUUID()}`;
      const back = await call(
        'POST',
        `/owners/${to}/import`,
        `${exported}not json\n`,
        kg.operatorKey,
      );
      expect(back.status).toBe(200);
      // The derived rule is skipped (its source gets a new id); the bad line is reported by number.
      expect(back.json).toMatchObject({ lines: 5, imported: 3, skippedDerived: 1 });
      expect(
        back.json.failures.map((f: { line: number; code: string }) => [f.line, f.code]),
      ).toEqual([[5, 'invalid_json']]);
      const tool = await call('GET', `${o()}/export.jsonl`, undefined, toolKey);
      expect([tool.status, tool.json.error.code]).toEqual([403, 'forbidden_role']);
      const bad = await call('POST', `/owners/${to}/import`, { rows: [] }, kg.operatorKey);
      expect([bad.status, bad.json.error.code]).toEqual([400, 'invalid_input']);
    });
  });
}
