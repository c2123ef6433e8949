// The relay's read of the outbox: a row whose entry was acked while the read
// ran (Neo4j hands back its properties as null) is not a pending job.
import { describe, expect, it } from 'vitest';
import { pendingFrom, type OutboxRow } from '../src/outbox.ts';

const row = (id: string): OutboxRow => ({
  id,
  name: 'reflect',
  ownerId: 'owner:1',
  payload: '{"episodeIds":["m-1"]}',
  recordedAt: '2026-12-06T21:00:00.000Z',
});

describe('pendingFrom', () => {
  it('passes whole rows on as jobs, in order', () => {
    expect(pendingFrom([row('a'), row('b')]).map((e) => e.job)).toEqual([
      { id: 'a', name: 'reflect', ownerId: 'owner:1', payload: { episodeIds: ['m-1'] } },
      { id: 'b', name: 'reflect', ownerId: 'owner:1', payload: { episodeIds: ['m-1'] } },
    ]);
  });

  it('leaves out a row deleted under the read', () => {
    const gone: OutboxRow = {
      id: null,
      name: null,
      ownerId: null,
      payload: null,
      recordedAt: null,
    };
    expect(pendingFrom([row('a'), gone, row('b')]).map((e) => e.job.id)).toEqual(['a', 'b']);
    expect(pendingFrom([{ ...row('c'), name: null }])).toEqual([]);
  });
});
