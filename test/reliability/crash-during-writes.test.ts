// Crash during writes (issue 18, item 2): `keepgraph start` as shipped takes
// a burst of HTTP writes (up to 1,000 at full scale, 400 in the test
// command) from 8 concurrent clients, one owner each,
// and is killed with SIGKILL at a random moment of it (after a seeded
// random number of acknowledged writes), then started again over the same
// data; 20 rounds a store at full scale, 6 in the test command
// (test/scale.ts; KG_CRASH_ROUNDS to change it while working).
// After each restart:
// - every acknowledged write is there, its text as sent;
// - every memory of those owners, acknowledged or not (a write may commit
//   before its answer is lost), is whole: its row, its full-text entry and
//   (SQLite) its vector, as verify-forgotten reports them, and an audit
//   event naming it;
// and at the end the audit chain verifies and the outbox drains.
// Prints the figures: rounds, writes sent, acknowledged, found without an
// acknowledgement, partial records.
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { type MemoryStore } from '@keepgraph/core/ports';
import { seededRandom } from '@keepgraph/core/testing';
import { createNeo4jStore } from '@keepgraph/store-neo4j';
import { createSqliteStore } from '@keepgraph/store-sqlite';
import { operatorCall, scratchKeepGraph, type KeepGraphProcess } from '../e2e/keepgraph-process.ts';
import { storeEnv } from '../e2e/stores.ts';
import { neo4jAuth, neo4jUri } from '../services.ts';
import { WHOLE, allMemories, audited, traces } from './outage/whole.ts';
import { scaled } from '../scale.ts';
import { STORE_KINDS } from '@keepgraph/runtime';

/* eslint-disable @typescript-eslint/no-explicit-any -- answers are JSON read by shape */

const ROUNDS = scaled('KG_CRASH_ROUNDS', { ci: 4, full: 20 });
/**
 * Writes a round may send; the kill comes after 20 to BURST - 80 of them are
 * acknowledged (seeded). Neo4j takes about 25 writes a second from 8 clients
 * on two cores, so a full-scale round there is about 20 s.
 */
const BURST = scaled('KG_CRASH_BURST', { ci: 400, full: 1000 });
const CLIENTS = 8;

/** A number spelt in letters: texts carry no digit run a personal-data detector could read. */
const spelt = (n: number) =>
  [...n.toString(16)].map((d) => String.fromCharCode(97 + parseInt(d, 16))).join('');

const THINGS = ['blue kettle', 'garden gate', 'spare key', 'old bicycle', 'red notebook'];
const PLACES = ['back porch', 'kitchen shelf', 'attic', 'garage', 'front hall'];

for (const store of STORE_KINDS) {
  describe(`kill -9 during a burst of writes (${store})`, () => {
    const servers = scratchKeepGraph(`keepgraph-crash-${store}-`, {
      KEEPGRAPH_RATE_LIMIT: '0',
      ...storeEnv(store),
    });
    afterAll(() => servers.end('kill'));

    it(`keeps every acknowledged write, and no partial one, over ${ROUNDS} rounds`, async () => {
      /**
       * Every memory the owner has now, acknowledged or not, and those of
       * them that are not whole: a part missing where the store reports its
       * parts (verify-forgotten), or no audit event naming it. The text of
       * each acknowledged write is checked as sent.
       */
      const checkOwner = async (kg: KeepGraphProcess, owner: string, sent: Map<string, string>) => {
        const held = await allMemories(kg, owner);
        for (const [id, text] of held) if (sent.has(id)) expect(text, id).toBe(sent.get(id));
        const ids = [...held.keys()];
        const parts = await traces(kg, owner, ids);
        const inAudit = await audited(kg, owner);
        const partial = ids.filter(
          (id) => !WHOLE[store].every((w) => parts.get(id)!.has(w)) || !inAudit.has(id),
        );
        return { ids, partial };
      };
      // Seeded: the kill points repeat run to run.
      const random = seededRandom(18);
      const figures = { rounds: 0, sent: 0, acknowledged: 0, unacknowledgedFound: 0, partial: 0 };

      let kg = await servers.start();
      for (let round = 0; round < ROUNDS; round++) {
        // One owner a client: a burst of several tenants, none waiting on another's lock.
        const owners = Array.from(
          { length: CLIENTS },
          () => `crash-${spelt(round)}-${randomUUID()}`,
        );
        const killAfter = 20 + Math.floor(random() * (BURST - 100));
        const acknowledged = new Map<string, string>();
        let next = 0;
        let acks = 0;
        let killing: Promise<void> | null = null;
        const client = async (owner: string) => {
          while (next < BURST && killing === null) {
            const i = next++;
            const place = PLACES[i % PLACES.length]!;
            const text = `Round ${spelt(round)} note ${spelt(i)}: the ${THINGS[i % THINGS.length]} is by the ${place}`;
            figures.sent++;
            try {
              const r = await fetch(`${kg.base}/v1/owners/${owner}/memories`, {
                method: 'POST',
                headers: {
                  authorization: `Bearer ${kg.operatorKey}`,
                  'content-type': 'application/json',
                },
                body: JSON.stringify({ kind: 'fact', text, origin: { sessionId: 'crash' } }),
              });
              const json = (await r.json()) as any;
              // Before the kill every write is accepted: nothing here is refusable.
              expect(r.status, JSON.stringify(json)).toBe(201);
              acknowledged.set(json.memory.id, text);
              if (++acks >= killAfter) killing ??= kg.kill();
            } catch (e) {
              // Once the kill is under way, a request may die with the process.
              if (killing === null) throw e;
            }
          }
        };
        await Promise.all(owners.map(client));
        await (killing ?? kg.kill());
        kg = await servers.start();
        const ids: string[] = [];
        for (const owner of owners) {
          const found = await checkOwner(kg, owner, acknowledged);
          ids.push(...found.ids);
          figures.partial += found.partial.length;
          expect(found.partial, `round ${round}: partial records of ${owner}`).toEqual([]);
        }
        const held = new Set(ids);
        for (const id of acknowledged.keys()) expect(held.has(id), id).toBe(true);
        figures.rounds++;
        figures.acknowledged += acknowledged.size;
        figures.unacknowledgedFound += ids.filter((id) => !acknowledged.has(id)).length;
      }

      expect((await operatorCall(kg, 'GET', '/audit/verify')).ok).toBe(true);
      // The outbox drains: the restarted server relays what the killed ones had recorded.
      const port: MemoryStore =
        store === 'sqlite'
          ? createSqliteStore({ path: join(servers.dataDir, 'keepgraph.db') })
          : createNeo4jStore({ uri: neo4jUri(), ...neo4jAuth() });
      await port.init({ dimensions: 384 });
      try {
        let pending = await port.outboxPending(100);
        for (let waited = 0; pending.length > 0 && waited < 60_000; waited += 250) {
          await sleep(250);
          pending = await port.outboxPending(100);
        }
        expect(pending).toEqual([]);
      } finally {
        await port.close();
      }
      await kg.stop();
      console.log(`crash during writes (${store}): ${JSON.stringify(figures)}`);
      expect(figures.rounds).toBe(ROUNDS);
    }, 1_800_000);
  });
}
