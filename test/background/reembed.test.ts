// After an embedding-model change, the reembed job (enqueued once when the
// background starts) re-embeds what was stored with the old model: vectors
// and embeddingModel replaced, audited, and found by the new model's queries.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startInProcessBackground } from '@keepgraph/core/jobs';
import { ManualClock, type Embedder } from '@keepgraph/core/ports';
import { createTransformersEmbedder } from '@keepgraph/embedder';
import { createSqliteStore } from '@keepgraph/store-sqlite';
import { operator, user, engineOver } from './harness.ts';

const dir = mkdtempSync(join(tmpdir(), 'kg-reembed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('changing the embedding model', () => {
  it('re-embeds the stored memories in the background', async () => {
    const path = join(dir, 'kg.db');
    const clock = new ManualClock(new Date().toISOString());
    const open = async (embedder: Embedder) => {
      const store = createSqliteStore({ path });
      return { store, engine: await engineOver(store, { clock, embedder }) };
    };
    const old = await open(await createTransformersEmbedder({ modelId: 'all-minilm-l6-v2-q' }));
    const o = `owner-${randomUUID()}`;
    const texts = [
      'Alex books aisle seats on long flights.',
      'The office moved to Leipzig in May.',
    ];
    const ids: string[] = [];
    for (const text of texts)
      ids.push(
        (await old.engine.remember(user, o, { kind: 'fact', text, origin: { sessionId: 's' } }))
          .memory.id,
      );
    await old.store.close();

    const bge = await createTransformersEmbedder({ modelId: 'bge-small-en-v1.5-q' });
    const now = await open(bge);
    expect(await now.store.staleEmbeddings(o, bge.modelId, 10)).toHaveLength(2);
    const bg = startInProcessBackground(now.engine, { schedules: true });
    try {
      await bg.settle();
      expect(await now.store.staleEmbeddings(o, bge.modelId, 10)).toEqual([]);
      const rows = await now.store.getByIds(o, ids);
      expect(rows.map((m) => m.embeddingModel)).toEqual([bge.modelId, bge.modelId]);
      const [q] = await bge.embed(['Where is the office now?'], 'query');
      const hits = await now.store.searchVector(o, q!, {
        limit: 1,
        now: clock.now().toISOString(),
      });
      expect(hits[0]!.id).toBe(ids[1]);
      const audit = await now.engine.auditList(operator, { ownerId: o });
      expect(
        audit
          .filter((e) => e.type === 'reembed')
          .flatMap((e) => e.memoryIds)
          .sort(),
      ).toEqual([...ids].sort());
    } finally {
      await bg.stop();
      await now.store.close();
    }
  });
});
