// The job outbox (DESIGN.md, "Modes"): jobs a write or a cascade triggers
// are recorded in the same transaction (so a failed write leaves none and a
// queue outage loses none), each job id once while pending, read oldest
// first across owners and removed on ack. Stores are shared between tests
// and the outbox is read across owners, so every assertion keeps to the
// test's own random owners. (What background jobs read and mark:
// 13b-job-bookkeeping.ts.)
import { expect, it } from 'vitest';
import { compactJob, reembedJob, reflectJob } from '@keepgraph/core/jobs';
import { auditEventFixture, memoryFixture, randomUnitVector } from '@keepgraph/core/testing';
import {
  batchOf,
  conformanceSuite,
  derived,
  expectCode,
  operator,
  ownersWithJobs,
  pendingJobs,
  putMemories,
  user,
  userEpisode,
  verifyReceipt,
} from '../harness.ts';

const T = (minute: number): string => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();
const NOW = '2026-06-01T00:00:00.000Z';

export const outboxSuite = conformanceSuite('the job outbox', (f) => {
  const owner = ownersWithJobs(f);
  const dims = () => f.engine.deps.embedder.dimensions;

  it('records a write’s jobs with the batch, dated by its first audit event, oldest first', async () => {
    const o = owner();
    const m = memoryFixture(o, { createdAt: T(1) });
    const reflect = reflectJob(o, 'count', m.id);
    const compact = compactJob(o, m.id);
    await f.store.write(
      batchOf({
        memories: [{ memory: m, embedding: randomUnitVector(dims()) }],
        audit: [{ ...auditEventFixture('write', o, [m.id]), at: T(5) }],
        jobs: [reflect, compact],
      }),
    );
    // No audit event: dated by the first memory's createdAt.
    const m2 = memoryFixture(o, { createdAt: T(2) });
    const reembed = reembedJob(o, 'model-x');
    await f.store.write(
      batchOf({
        memories: [{ memory: m2, embedding: null }],
        jobs: [reembed],
      }),
    );

    const mine = await pendingJobs(f, o);
    // Write order, not recordedAt order (the second batch is dated earlier).
    expect(mine).toEqual([
      { job: reflect, recordedAt: T(5) },
      { job: compact, recordedAt: T(5) },
      { job: reembed, recordedAt: T(2) },
    ]);
    expect(await f.store.getById(o, m.id)).toEqual(m);
  });

  it('dates a batch with neither audit events nor memories by the wall clock', async () => {
    const o = owner();
    const job = compactJob(o, 'tick-1');
    const before = Date.now();
    await f.store.write(batchOf({ jobs: [job] }));
    const [entry] = await pendingJobs(f, o);
    expect(entry?.job).toEqual(job);
    const at = Date.parse(entry!.recordedAt);
    expect(at).toBeGreaterThanOrEqual(before - 1000);
    expect(at).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('records a pending job id once, within a batch and across batches', async () => {
    const o = owner();
    const job = reflectJob(o, 'count', 'anchor-1');
    const other = reflectJob(o, 'negative', 'anchor-1');
    await f.store.write(
      batchOf({ jobs: [job, job], audit: [{ ...auditEventFixture('write', o), at: T(1) }] }),
    );
    // Same id again, with another payload: ignored, the first entry stays as it was.
    await f.store.write(
      batchOf({
        jobs: [{ ...job, payload: { reason: 'changed' } }, other],
        audit: [{ ...auditEventFixture('write', o), at: T(2) }],
      }),
    );
    expect(await pendingJobs(f, o)).toEqual([
      { job, recordedAt: T(1) },
      { job: other, recordedAt: T(2) },
    ]);
  });

  it('concurrent writes lose no job and record a shared id once', async () => {
    const o = owner();
    const shared = reflectJob(o, 'count', 'shared');
    const own = Array.from({ length: 10 }, (_, i) => compactJob(o, `w${i}`));
    await Promise.all(
      own.map((job) =>
        f.store.write(
          batchOf({
            memories: [{ memory: memoryFixture(o), embedding: randomUnitVector(dims()) }],
            jobs: [shared, job],
          }),
        ),
      ),
    );
    const ids = (await pendingJobs(f, o)).map((e) => e.job.id);
    expect(ids).toHaveLength(11);
    expect(new Set(ids)).toEqual(new Set([shared.id, ...own.map((j) => j.id)]));
  });

  it('a failed write records no job (the batch is all or nothing)', async () => {
    const o = owner();
    const m = memoryFixture(o);
    await putMemories(f, [m]);
    const job = reflectJob(o, 'count', 'after-conflict');
    // Duplicate memory id: conflict.
    await expectCode(
      f.store.write(
        batchOf({
          memories: [
            { memory: memoryFixture(o), embedding: null },
            { memory: { ...memoryFixture(o), id: m.id }, embedding: null },
          ],
          jobs: [job],
        }),
      ),
      'conflict',
    );
    // A source the owner lacks: invalid_input.
    await expectCode(
      f.store.write(
        batchOf({
          memories: [
            {
              memory: memoryFixture(o, { kind: 'summary', derivedFrom: ['no-such-memory'] }),
              embedding: null,
            },
          ],
          jobs: [compactJob(o, 'after-invalid')],
        }),
      ),
      'invalid_input',
    );
    expect(await pendingJobs(f, o)).toEqual([]);
    expect(await f.store.countMemories(o)).toBe(1);
  });

  it('refuses a job without an id before writing anything', async () => {
    const o = owner();
    const m = memoryFixture(o);
    await expectCode(
      f.store.write(
        batchOf({
          memories: [{ memory: m, embedding: null }],
          jobs: [{ ...compactJob(o, 'x'), id: ' ' }],
        }),
      ),
      'invalid_input',
    );
    expect(await f.store.getById(o, m.id)).toBeNull();
  });

  it('ack removes the relayed jobs, ignores unknown ids, and a removed id can be recorded again', async () => {
    const o = owner();
    const jobs = [compactJob(o, 'a'), compactJob(o, 'b'), compactJob(o, 'c')];
    await f.store.write(batchOf({ jobs, audit: [{ ...auditEventFixture('write', o), at: T(1) }] }));
    expect((await pendingJobs(f, o)).map((e) => e.job.id)).toEqual(jobs.map((j) => j.id));

    await f.store.outboxAck([jobs[0]!.id, jobs[2]!.id, 'no-such-job']);
    expect((await pendingJobs(f, o)).map((e) => e.job.id)).toEqual([jobs[1]!.id]);
    await f.store.outboxAck([jobs[0]!.id]);
    await f.store.outboxAck([]);
    expect((await pendingJobs(f, o)).map((e) => e.job.id)).toEqual([jobs[1]!.id]);

    // No longer pending: the same id is a new entry, after the one still waiting.
    await f.store.write(
      batchOf({ jobs: [jobs[0]!], audit: [{ ...auditEventFixture('write', o), at: T(2) }] }),
    );
    expect(await pendingJobs(f, o)).toEqual([
      { job: jobs[1]!, recordedAt: T(1) },
      { job: jobs[0]!, recordedAt: T(2) },
    ]);
  });

  it('outboxPending is oldest first across owners and honours its limit', async () => {
    const a = owner();
    const b = owner();
    const ja = compactJob(a, 'first');
    const jb = compactJob(b, 'second');
    const ja2 = compactJob(a, 'third');
    for (const job of [ja, jb, ja2]) await f.store.write(batchOf({ jobs: [job] }));
    expect((await pendingJobs(f, a, b)).map((e) => e.job.id)).toEqual([ja.id, jb.id, ja2.id]);
    const all = await f.store.outboxPending(100_000);
    const at = (id: string): number => all.findIndex((e) => e.job.id === id);
    expect(at(ja.id)).toBeLessThan(at(jb.id));
    expect(await f.store.outboxPending(0)).toEqual([]);
    const one = await f.store.outboxPending(1);
    expect(one).toHaveLength(1);
    expect(one[0]).toEqual(all[0]);
  });

  it('a cascade records a rederive job naming the kind and the survivors, in its transaction', async () => {
    const o = owner();
    const e1 = await userEpisode(f, o, 'Robin adopted a grey rescue greyhound');
    const e2 = await userEpisode(f, o, 'Robin walks the dog along the canal');
    const mixed = await f.engine.remember(
      user,
      o,
      derived('Robin has a greyhound and walks it by the canal', [e1.memory.id, e2.memory.id]),
    );
    // Derived from the deleted episode alone: deleted, nothing to rebuild from.
    await f.engine.remember(
      user,
      o,
      derived('Robin owns a greyhound', [e1.memory.id], { kind: 'rule' }),
    );

    const receipt = await f.engine.forget(user, o, [e1.memory.id]);
    expect(receipt.rederive).toEqual([
      { id: mixed.memory.id, kind: 'summary', tags: [], survivingSourceCount: 1 },
    ]);
    const rederive = (await pendingJobs(f, o)).filter((e) => e.job.name === 'rederive');
    expect(rederive).toEqual([
      {
        job: {
          name: 'rederive',
          id: `rederive:${o}:${mixed.memory.id}:${receipt.at}`,
          ownerId: o,
          payload: {
            deletedDerivedId: mixed.memory.id,
            kind: 'summary',
            tags: [],
            survivingSources: [e2.memory.id],
          },
        },
        recordedAt: receipt.at,
      },
    ]);

    // The outbox holds the deleted summary's id, but it is not a trace:
    // it is a pointer for the job, like the audit log's, gone once relayed.
    expect(
      await f.store.findTraces(o, receipt.deletedMemoryIds, receipt.deletedContentHashes),
    ).toEqual([]);
    expect((await verifyReceipt(f, o, receipt)).forgotten).toBe(true);
  });

  it('a cascade that fails records no job', async () => {
    const o = owner();
    await expectCode(
      f.store.deleteCascade({
        ownerId: o,
        rootIds: ['no-such-memory'],
        reason: 'forget',
        at: NOW,
        audit: [],
      }),
      'not_found',
    );
    expect(await pendingJobs(f, o)).toEqual([]);
  });

  it('deleting memories leaves the outbox alone; forgetting the owner takes its pending jobs', async () => {
    const o = owner();
    const m = memoryFixture(o, { kind: 'episode' });
    const reflect = reflectJob(o, 'count', m.id);
    const reembed = reembedJob(o, 'model-y');
    await f.store.write(
      batchOf({
        memories: [{ memory: m, embedding: randomUnitVector(dims()) }],
        audit: [{ ...auditEventFixture('write', o, [m.id]), at: T(3) }],
        jobs: [reflect],
      }),
    );
    await f.store.write(
      batchOf({
        memories: [{ memory: memoryFixture(o), embedding: null }],
        audit: [{ ...auditEventFixture('write', o), at: T(4) }],
        jobs: [reembed],
      }),
    );
    await f.engine.forget(user, o, [m.id]);
    // A deleted memory's jobs find out for themselves that it is gone.
    expect(await pendingJobs(f, o)).toEqual([
      { job: reflect, recordedAt: T(3) },
      { job: reembed, recordedAt: T(4) },
    ]);
    const receipt = await f.engine.forgetOwner(user, o);
    expect(await f.store.countMemories(o)).toBe(0);
    // The owner's jobs name it, and nothing of it is left to work on.
    expect(await pendingJobs(f, o)).toEqual([]);
    const events = await f.engine.auditList(operator, { ownerId: o });
    expect(events.at(-1)?.details).toMatchObject({ outboxJobsDeleted: 2 });
    expect(receipt.deletedMemoryIds).toHaveLength(1);
  });
});
