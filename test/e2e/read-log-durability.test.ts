// What a recall records (the read-log entry of what it served, and its
// audit event) is written in groups after the answer, not before it (see
// core's ReadJournal). The promise to users: a clean stop loses none of
// them, and a crash loses at most those of the last flush interval (100 ms
// by default). Here `keepgraph start` as shipped is stopped with SIGTERM
// right after a recall's answer, then killed with SIGKILL a second after
// another's, and a new process over the same data finds both reads, their
// audit events, and an unbroken chain.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_READ_FLUSH_MS } from '@keepgraph/core/ports';
import { operatorCall, scratchKeepGraph, type KeepGraphProcess } from './keepgraph-process.ts';
import { storeEnv } from './stores.ts';
import { STORE_KINDS } from '@keepgraph/runtime';

/* eslint-disable @typescript-eslint/no-explicit-any -- answers are JSON read by shape */

for (const store of STORE_KINDS) {
  describe(`the reads a recall served, across a clean stop and a crash (${store})`, () => {
    const servers = scratchKeepGraph(`keepgraph-reads-${store}-`, {
      KEEPGRAPH_RATE_LIMIT: '0',
      ...storeEnv(store),
    });
    afterAll(() => servers.end('stop'));

    it('keeps every read on SIGTERM, and those older than the flush interval on SIGKILL', async () => {
      const owner = `reads-${randomUUID()}`;
      const recall = async (kg: KeepGraphProcess) => {
        const r = await operatorCall(kg, 'POST', `/owners/${owner}/recall`, {
          query: 'the harbour ferry',
        });
        expect(r.results.length).toBeGreaterThan(0);
        return r.requestId as string;
      };
      const readsNow = async (kg: KeepGraphProcess) => ({
        reads: (await operatorCall(kg, 'GET', `/owners/${owner}/reads?limit=10`)).reads.map(
          (r: any) => r.requestId,
        ),
        audited: (await operatorCall(kg, 'GET', `/audit?ownerId=${owner}&limit=1000`)).events
          .filter((e: any) => e.type === 'read')
          .map((e: any) => e.details.requestId),
      });

      let kg = await servers.start();
      await operatorCall(kg, 'POST', `/owners/${owner}/memories`, {
        kind: 'fact',
        text: 'The harbour ferry leaves at seven every morning',
        origin: { sessionId: 'travel' },
      });
      const first = await recall(kg);
      // A clean stop straight after the answer: the close writes what is pending.
      await kg.stop();

      kg = await servers.start();
      expect(await readsNow(kg)).toEqual({ reads: [first], audited: [first] });
      const second = await recall(kg);
      // Ten intervals, then a crash: the timer has written it.
      await sleep(DEFAULT_READ_FLUSH_MS * 10);
      await kg.kill();

      kg = await servers.start();
      expect(await readsNow(kg)).toEqual({ reads: [second, first], audited: [first, second] });
      expect((await operatorCall(kg, 'GET', '/audit/verify')).ok).toBe(true);
    }, 300_000);
  });
}
