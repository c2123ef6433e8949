// The rules of core's backup and restore that the reliability suite cannot
// time (test/reliability/backup-restore.test.ts runs them end to end), on
// real SQLite stores in this process: a deletion logged while a live store
// was being read is applied again; memories come back with their
// supersession, lineage and reflection state whatever order they arrive in,
// and one whose source the backup lacks is left out; over a store of
// another history every deletion it records of a backed-up memory is
// applied again, and its audit log and keys stay.
import { afterEach, describe, expect, it } from 'vitest';
import { type Memory } from '@keepgraph/core';
import {
  backupLines,
  readBackupLines,
  restoreBackup,
  storeBackupSource,
  type BackedUpMemory,
  type BackupSource,
} from '@keepgraph/core/backup';
import { memoryFixture } from '@keepgraph/core/testing';
import type { EmbeddedRuntime } from '@keepgraph/runtime';
import { cleanUp, embedder, openScratch, operator, scratchDir } from './scratch.ts';

const runtime = async () =>
  openScratch(await scratchDir('keepgraph-restore-unit-'), { auditSecret: 'a'.repeat(64) });

afterEach(cleanUp);

async function remember(rt: EmbeddedRuntime, owner: string, over: Record<string, unknown>) {
  const r = await rt.engine.remember(operator, owner, {
    kind: 'episode',
    origin: { sessionId: 'unit' },
    ...over,
  } as never);
  return r.memory.id;
}

/** A backup source over a list, in the order given. */
function listSource(
  memories: BackedUpMemory[],
  header: Partial<BackupSource['header']> = {},
): BackupSource {
  return {
    header: {
      format: 'keepgraph-backup',
      version: 1,
      store: 'sqlite',
      createdAt: '2026-01-01T00:00:00.000Z',
      snapshot: null,
      dimensions: embedder.dimensions,
      embeddingModel: embedder.modelId,
      auditSecret: null,
      ...header,
    },
    async *memories() {
      yield* memories;
    },
    async *apiKeys() {},
    async *auditEvents() {},
  };
}

/** A backup of `rt`'s live store, read as `keepgraph backup` reads it. */
const backupOf = (rt: EmbeddedRuntime) =>
  storeBackupSource(rt.store, {
    createdAt: new Date().toISOString(),
    embeddingModel: embedder.modelId,
    dimensions: embedder.dimensions,
    auditSecret: null,
  });

/** A backup file made of these lines. */
const fileOf = (lines: string[]) =>
  readBackupLines(async function* () {
    yield* lines;
  });

const vector = async (text: string) => (await embedder.embed([text], 'document'))[0]!;

describe('restore', () => {
  it('applies again a deletion logged after the snapshot of a live backup, of a memory it read', async () => {
    const live = await runtime();
    const source = await remember(live, 'ann', { text: 'Ann keeps her bicycle in the garage' });
    const derived = await remember(live, 'ann', {
      kind: 'fact',
      authority: 'agent_inferred',
      text: 'Ann owns a bicycle that lives in the garage',
      origin: { extractor: { name: 'unit', version: 'one' } },
      derivedFrom: [source],
    });
    const other = await remember(live, 'ann', { text: 'Ann plays chess on Thursdays' });
    const backup = await backupOf(live);
    // Read the memories, then forget one, then read the log: as a live store would be read.
    const lines: string[] = [];
    for await (const line of backupLines(backup)) {
      if (line.includes('"type":"apiKey"') || line.includes('"type":"audit"')) {
        if (!lines.some((l) => l.includes('"type":"audit"') || l.includes('"type":"apiKey"')))
          await live.engine.forget(operator, 'ann', [source]);
      }
      lines.push(line);
    }
    expect(lines.filter((l) => l.includes('"type":"memory"'))).toHaveLength(3);
    const file = await fileOf(lines);
    const target = await runtime();
    const report = await restoreBackup(target.engine.deps, operator, file, { mode: 'empty' });
    expect(report.audit.ok).toBe(true);
    expect(report.deletionsReapplied).toEqual({ events: 1, memories: 2 });
    // The backup's log came first, event for event (the same hashes), then the restore's.
    const log = lines.filter((l) => l.includes('"type":"audit"')).map((l) => JSON.parse(l).event);
    expect(report.auditEventsReplayed).toBe(log.length);
    expect(await target.store.listAudit({ limit: log.length })).toEqual(log);
    expect((await target.store.getByIds('ann', [source, derived, other])).map((m) => m.id)).toEqual(
      [other],
    );
  });

  it('brings back supersession, lineage and reflection state in any order, and leaves out what lacks its source', async () => {
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    const m = (over: Partial<Memory>): Memory => memoryFixture('bo', over);
    const v1 = m({ key: 'seat', createdAt: at(1), validTo: at(2), kind: 'kv' });
    const v2 = m({ key: 'seat', createdAt: at(2), supersedes: v1.id, kind: 'kv' });
    v1.supersededBy = v2.id;
    // Read mid-write from a live store: the newer version, but not yet the mark on the older.
    const w1 = m({ key: 'bag', createdAt: at(3), kind: 'kv' });
    const w2 = m({ key: 'bag', createdAt: at(4), supersedes: w1.id, kind: 'kv' });
    // Its newer version was deleted while the store was read.
    const lonely = m({
      key: 'hat',
      createdAt: at(5),
      validTo: at(6),
      supersededBy: 'gone-id',
      kind: 'kv',
    });
    const ep = m({ kind: 'episode', createdAt: at(7) });
    const fresh = m({ kind: 'episode', createdAt: at(8) });
    const fact = m({ createdAt: at(9), derivedFrom: [ep.id, fresh.id] });
    const orphan = m({ createdAt: at(10), derivedFrom: [ep.id, 'never-backed-up'] });
    // Out of order (but for w1 and w2: that repair needs the older first, as sources give them).
    const all = [fact, v2, orphan, v1, w1, w2, lonely, fresh, ep];
    const backed: BackedUpMemory[] = [];
    for (const x of all)
      backed.push({ memory: x, embedding: await vector(x.text), reflected: x.id !== fresh.id });
    const target = await runtime();
    const report = await restoreBackup(target.engine.deps, operator, listSource(backed), {
      mode: 'empty',
      batchSize: 2,
    });
    expect(report.memories).toBe(all.length - 1);
    expect(report.droppedWithoutSources).toBe(1);
    const got = new Map(
      (
        await target.store.getByIds(
          'bo',
          all.map((x) => x.id),
        )
      ).map((x) => [x.id, x]),
    );
    expect(got.has(orphan.id)).toBe(false);
    expect(got.get(v1.id)).toEqual(v1);
    expect(got.get(v2.id)).toEqual(v2);
    expect(got.get(fact.id)).toEqual(fact);
    expect(got.get(w1.id)).toMatchObject({ supersededBy: w2.id, validTo: w2.createdAt });
    expect(got.get(lonely.id)).toMatchObject({ supersededBy: null, validTo: lonely.validTo });
    const now = new Date().toISOString();
    expect(
      (await target.store.unreflectedEpisodes('bo', { now, limit: 10 })).map((x) => x.id),
    ).toEqual([fresh.id]);
    expect((await target.store.getEmbeddings('bo', [fact.id]))[0]!.embedding).toEqual(
      await vector(fact.text),
    );
  });

  it('over a store of another history, deletes again every backed-up memory that store forgot, and keeps its log and keys', async () => {
    const a = await runtime();
    const kept = await remember(a, 'cy', { text: 'Cy grows tomatoes on the balcony' });
    const forgotten = await remember(a, 'cy', { text: 'Cy told us the alarm code story' });
    const lines: string[] = [];
    for await (const line of backupLines(await backupOf(a))) lines.push(line);
    const file = await fileOf(lines);
    // Another store (another history) that holds the same memories, forgot one, and has a key.
    const b = await runtime();
    await restoreBackup(b.engine.deps, operator, file, { mode: 'empty' });
    await b.engine.forget(operator, 'cy', [forgotten]);
    const key = await b.engine.createKey(operator, { name: 'k', role: 'user', owners: ['cy'] });
    await b.engine.remember(operator, 'cy', {
      kind: 'episode',
      text: 'Cy repainted the balcony railing in green',
      origin: { sessionId: 'later' },
    });
    const logBefore = (await b.store.listAudit({ limit: 1000 })).length;
    // The first backup again, under a snapshot b's log does not hold: another history.
    const report = await restoreBackup(
      b.engine.deps,
      operator,
      { ...file, header: { ...file.header, snapshot: { seq: 1, hash: 'f'.repeat(64) } } },
      { mode: 'replace' },
    );
    expect(report.mode).toBe('replace');
    expect(report.sameHistory).toBe(false);
    expect(report.deletionsReapplied.memories).toBe(1);
    expect(report.audit.ok).toBe(true);
    expect(report.replacedMemories).toBe(2);
    expect((await b.store.getByIds('cy', [kept, forgotten])).map((m) => m.id)).toEqual([kept]);
    expect(await b.store.countMemories('cy')).toBe(1);
    expect((await b.store.listApiKeys()).map((k) => k.id)).toEqual([key.id]);
    expect((await b.store.listAudit({ limit: 1000 })).length).toBeGreaterThan(logBefore);
  });

  it('refuses a non-empty store in empty mode, and vectors of another size, before writing anything', async () => {
    const t = await runtime();
    await remember(t, 'di', { text: 'Di collects old postcards from the seaside' });
    const one = memoryFixture('di');
    const source = listSource([
      { memory: one, embedding: await vector(one.text), reflected: true },
    ]);
    await expect(
      restoreBackup(t.engine.deps, operator, source, { mode: 'empty' }),
    ).rejects.toMatchObject({ code: 'conflict', details: { reason: 'store_not_empty' } });
    const empty = await runtime();
    await expect(
      restoreBackup(
        empty.engine.deps,
        operator,
        listSource([], { dimensions: 384, embeddingModel: 'bge-small-en-v1.5-q' }),
        { mode: 'empty' },
      ),
    ).rejects.toMatchObject({ code: 'invalid_input' });
    expect((await empty.store.listAudit({ limit: 10 })).length).toBe(0);
  });
});
