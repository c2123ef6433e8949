// The read journal while its store is away: flushes asked for while one is
// failing fail with it instead of each waiting out the store again, nothing
// accepted is lost, and the order is kept once the store is back.
import { describe, expect, it } from 'vitest';
import { ReadJournal } from '../src/ports/read-journal.ts';
import type { ReadLogEntry } from '../src/ports/memory-store.ts';

const entry = (requestId: string) => ({ requestId }) as unknown as ReadLogEntry;

describe('ReadJournal while the store is away', () => {
  it('fails the flushes queued behind a failing one at once, then writes everything in order', async () => {
    const written: string[][] = [];
    const state = { down: true, attempts: 0 };
    // A store that waits 200 ms for its dependency before it fails, as a store waits out a lock.
    const journal = new ReadJournal(async (reads) => {
      state.attempts++;
      await new Promise((r) => setTimeout(r, 200));
      if (state.down) throw new Error('away');
      written.push(reads.map((r) => r.requestId));
    }, 60_000);
    await journal.accept([entry('a')], []);
    const t0 = performance.now();
    const flushes = await Promise.allSettled(
      ['b', 'c', 'd', 'e'].map(async (id) => {
        await journal.accept([entry(id)], []).catch(() => {});
        return journal.flush();
      }),
    );
    const took = performance.now() - t0;
    expect(flushes.map((f) => f.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
    // One wait for them all, not one after another (800 ms and more).
    expect(took).toBeLessThan(500);
    expect(state.attempts).toBe(1);
    expect(journal.pending).toBe(5);

    state.down = false;
    await journal.idle();
    await journal.flush();
    expect(written).toEqual([['a', 'b', 'c', 'd', 'e']]);
    journal.discardTimer();
  });
});
