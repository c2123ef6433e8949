// The store kit's own contract, on a toy store whose operations are stubs:
// nothing runs before init() or after close(), a synchronous operation
// answers with a promise, driver errors become codes with the driver's error
// on `cause`, and each port member runs its own operation with the context.
// (Real stores are proven by the conformance suite.)
import { describe, expect, it, vi } from 'vitest';
import { KeepGraphError, isKeepGraphError } from '@keepgraph/core';
import {
  JOURNAL_FREE,
  KitStore,
  STORE_OPERATIONS,
  STORE_RULES,
  storeError,
  type StoreOperations,
  type StoreRules,
} from '@keepgraph/core/ports';

class DriverError extends Error {}

interface Ctx {
  dimensions: number;
  calls: string[];
}

const operations = Object.fromEntries(
  STORE_OPERATIONS.map((name) => [
    name,
    (c: Ctx, ...args: unknown[]) => {
      c.calls.push(name);
      if (args[0] === 'driver-fails') throw new DriverError('disk on fire');
      if (args[0] === 'range') throw new RangeError('too big');
      if (args[0] === 'ours') throw new KeepGraphError('not_found', 'ours');
      return `${name}:${c.dimensions}:${args.length}`;
    },
  ]),
) as unknown as StoreOperations<Ctx>;

class ToyStore extends KitStore<Ctx> {
  readonly kind = 'toy';
  shutdowns = 0;
  readonly state: Ctx = { dimensions: 0, calls: [] };
  constructor(ops: StoreOperations<Ctx> = operations, readFlushMs?: number) {
    super(ops, readFlushMs === undefined ? {} : { readFlushMs });
  }
  rules: StoreRules | null = null;
  protected open(opts: { dimensions: number; rules: StoreRules }) {
    this.state.dimensions = opts.dimensions;
    this.rules = opts.rules;
    return Promise.resolve({ context: this.state, schemaVersion: 1 });
  }
  protected shutdown(): Promise<void> {
    this.shutdowns++;
    return Promise.resolve();
  }
  protected driverError(e: unknown) {
    return e instanceof DriverError ? storeError('store_unavailable', 'the toy is down', e) : null;
  }
}

// Arguments that pass the kit's checks, per member (the toy ignores them).
const lim = { limit: 1 };
const emptyBatch = { memories: [], supersede: [], sessionMessages: [], audit: [] };
const VALID_ARGS: Record<(typeof STORE_OPERATIONS)[number], unknown[]> = {
  write: [emptyBatch],
  deleteCascade: [{ ownerId: 'o' }],
  getById: ['o', 'x'],
  getByIds: ['o', []],
  getByKey: ['o', 'k'],
  findBySource: ['o', {}],
  listIds: ['o', lim],
  listOwners: [lim],
  countMemories: ['o'],
  lowestValue: ['o', 1],
  dueForExpiry: ['now', 1],
  derivedFrom: ['o', []],
  nextInSession: ['o', []],
  previousInSession: ['o', []],
  relations: ['o'],
  searchVector: ['o', new Float32Array(384), lim],
  searchText: ['o', 'q', lim],
  searchEntities: ['o', [], lim],
  sessionMessages: ['o', 's', lim],
  trimSession: ['o', 's', 1],
  deleteSessionMessages: ['o', {}],
  deleteOwnerResidue: ['o'],
  logReads: [[{ ownerId: 'o' }], []],
  readLog: ['o', lim],
  outboxPending: [1],
  outboxAck: [[]],
  unreflectedEpisodes: ['o', lim],
  countUnreflected: ['o', 'now'],
  recentSources: ['o', lim],
  duePasses: ['reflect', lim],
  staleEmbeddings: ['o', 'm', 1],
  replaceEmbeddings: ['o', []],
  getEmbeddings: ['o', []],
  appendAudit: [[]],
  listAudit: [lim],
  findTraces: ['o', [], []],
  counts: [],
  listSessions: ['o', { limit: 1, now: '2026-01-01T00:00:00.000Z' }],
  saveApiKey: [{}, {}],
  getApiKey: ['k'],
  listApiKeys: [],
  revokeApiKey: ['k', '2026-01-01T00:00:00.000Z', {}],
  observedIn: ['o', 's'],
  claimIdempotency: [{}],
  completeIdempotency: ['s', 'k', { status: 200, body: {} }, []],
  releaseIdempotency: ['s', 'k', '2026-01-01T00:00:00.000Z'],
};

const code = (e: unknown) => (isKeepGraphError(e) ? e.code : String(e));

describe('the store kit', () => {
  it('refuses every member before init() and after close(), and closes once', async () => {
    const s = new ToyStore();
    expect(code(await s.getById('o', 'x').catch((e: unknown) => e))).toBe('store_unavailable');
    await s.init({ dimensions: 384 });
    await s.close();
    await s.close();
    expect(s.shutdowns).toBe(1);
    for (const name of STORE_OPERATIONS) {
      const call = s[name] as (...a: unknown[]) => Promise<unknown>;
      expect(code(await call('o').catch((e: unknown) => e)), name).toBe('store_unavailable');
    }
    expect(code(await s.init({ dimensions: 1 }).catch((e: unknown) => e))).toBe(
      'store_unavailable',
    );
  });

  it('runs each member as its own operation on the context, as a promise', async () => {
    const s = new ToyStore();
    await s.init({ dimensions: 384 });
    for (const name of STORE_OPERATIONS) {
      const call = s[name] as (...a: unknown[]) => Promise<unknown>;
      const args = VALID_ARGS[name];
      const answer = call(...args);
      expect(answer).toBeInstanceOf(Promise);
      // logReads is accepted (group commit) and written by the next operation that flushes.
      if (name === 'logReads') expect(await answer).toBeUndefined();
      else expect(await answer).toBe(`${name}:384:${args.length}`);
    }
    const flushedBy = STORE_OPERATIONS.slice(STORE_OPERATIONS.indexOf('logReads') + 1).find(
      (n) => !JOURNAL_FREE.has(n),
    )!;
    const expected: string[] = STORE_OPERATIONS.filter((n) => n !== 'logReads');
    expected.splice(expected.indexOf(flushedBy), 0, 'logReads');
    expect(s.state.calls).toEqual(expected);
  });

  it('checks vectors against the dimension fixed at init() and hands the store the rules', async () => {
    const s = new ToyStore();
    await s.init({ dimensions: 3 });
    expect(s.rules).toBe(STORE_RULES);
    const memory = { id: 'm', ownerId: 'o', relations: [] };
    const tooLong = new Float32Array(4);
    const refused = [
      () => s.write({ ...emptyBatch, memories: [{ memory, embedding: tooLong }] } as never),
      () => s.replaceEmbeddings('o', [{ id: 'm', model: 'x', embedding: tooLong }]),
      () => s.searchVector('o', tooLong, { limit: 1, now: '2026-01-01T00:00:00.000Z' }),
    ];
    for (const call of refused)
      expect(code(await call().catch((e: unknown) => e))).toBe('invalid_input');
    expect(s.state.calls).toEqual([]);
    await s.write({
      ...emptyBatch,
      memories: [{ memory, embedding: new Float32Array(3) }],
    } as never);
    expect(s.state.calls).toEqual(['write']);
  });

  it('checks owners and limits at the boundary, before an operation runs', async () => {
    const s = new ToyStore();
    await s.init({ dimensions: 3 });
    let ownerScoped = 0;
    for (const name of STORE_OPERATIONS) {
      const call = s[name] as (...a: unknown[]) => Promise<unknown>;
      const args = VALID_ARGS[name];
      // A blank owner where the member takes one (first argument, or the request's ownerId).
      const blank = args.map((a, i) =>
        i === 0 && a === 'o'
          ? '  '
          : i === 0 && typeof a === 'object' && a && 'ownerId' in a
            ? { ownerId: '' }
            : a,
      );
      if (JSON.stringify(blank) !== JSON.stringify(args)) {
        expect(code(await call(...blank).catch((e: unknown) => e)), name).toBe('owner_required');
        ownerScoped++;
      }
      // A negative limit where the member takes one.
      const bad = args.map((a) => (a === 1 ? -1 : a === lim ? { limit: 1.5 } : a));
      if (JSON.stringify(bad) !== JSON.stringify(args))
        expect(code(await call(...bad).catch((e: unknown) => e)), name).toBe('invalid_input');
    }
    expect(ownerScoped).toBeGreaterThanOrEqual(25);
    // None of the refused calls reached its operation.
    expect(s.state.calls).toEqual([]);
  });

  it('maps driver errors and range errors to codes, keeping the original on cause', async () => {
    const s = new ToyStore();
    await s.init({ dimensions: 3 });
    const down = await s.getById('driver-fails', 'x').catch((e: unknown) => e);
    expect(code(down)).toBe('store_unavailable');
    expect((down as Error).cause).toBeInstanceOf(DriverError);
    const range = await s.countMemories('range').catch((e: unknown) => e);
    expect(code(range)).toBe('invalid_input');
    expect((range as Error).cause).toBeInstanceOf(RangeError);
    const ours = await s.getByKey('ours', 'k').catch((e: unknown) => e);
    expect(code(ours)).toBe('not_found');
    expect((ours as Error).cause).toBeUndefined();
  });

  describe('group commit of reads', () => {
    const read = (requestId: string) => ({
      ownerId: 'o',
      requestId,
      principal: 'p',
      sessionId: null,
      memoryIds: ['m'],
      at: '2026-01-01T00:00:00.000Z',
    });
    const event = (requestId: string) => ({
      type: 'read' as const,
      at: '2026-01-01T00:00:00.000Z',
      ownerId: 'o',
      actor: 'p',
      role: 'user',
      memoryIds: ['m'],
      contentHashes: [],
      reason: null,
      details: { requestId },
    });
    /** A toy whose logReads records each batch it is given, and fails while `down`. */
    const journalled = (readFlushMs?: number) => {
      const batches: string[][] = [];
      const state = { down: false };
      const ops = {
        ...operations,
        logReads: (c: Ctx, reads: readonly { requestId: string }[]) => {
          c.calls.push('logReads');
          if (state.down) throw new DriverError('disk on fire');
          batches.push(reads.map((r) => r.requestId));
        },
      } as StoreOperations<Ctx>;
      return { s: new ToyStore(ops, readFlushMs), batches, state };
    };

    it('answers before writing, then writes what came within the interval as one batch', async () => {
      vi.useFakeTimers();
      try {
        const { s, batches } = journalled(100);
        await s.init({ dimensions: 3 });
        await s.logReads([read('a')], [event('a')]);
        await s.logReads([read('b')], [event('b')]);
        expect(batches).toEqual([]);
        await vi.advanceTimersByTimeAsync(99);
        expect(batches).toEqual([]);
        await vi.advanceTimersByTimeAsync(1);
        expect(batches).toEqual([['a', 'b']]);
        await s.close();
      } finally {
        vi.useRealTimers();
      }
    });

    it('flushes before an operation that writes or reads the log, not before a search', async () => {
      const { s, batches } = journalled(60_000);
      await s.init({ dimensions: 3 });
      await s.logReads([read('a')], [event('a')]);
      await s.searchText('o', 'q', { limit: 1, now: '2026-01-01T00:00:00.000Z' });
      expect(batches).toEqual([]);
      await s.readLog('o', lim);
      expect(batches).toEqual([['a']]);
      await s.logReads([read('b')], []);
      await s.write(emptyBatch);
      expect(s.state.calls.slice(-3)).toEqual(['readLog', 'logReads', 'write']);
      await s.logReads([read('c')], []);
      await s.close();
      expect(batches).toEqual([['a'], ['b'], ['c']]);
      expect(s.shutdowns).toBe(1);
    });

    it('writes each read before answering with an interval of 0', async () => {
      const { s, batches } = journalled(0);
      await s.init({ dimensions: 3 });
      await s.logReads([read('a')], []);
      expect(batches).toEqual([['a']]);
      await s.close();
    });

    it('keeps the reads of a failed write, in order, and the next read sees the failure', async () => {
      const { s, batches, state } = journalled(60_000);
      await s.init({ dimensions: 3 });
      await s.logReads([read('a')], []);
      state.down = true;
      expect(code(await s.flush().catch((e: unknown) => e))).toBe('store_unavailable');
      // The next read is written before it answers, so its caller hears of the failure.
      expect(code(await s.logReads([read('b')], []).catch((e: unknown) => e))).toBe(
        'store_unavailable',
      );
      state.down = false;
      await s.logReads([read('c')], []);
      expect(batches).toEqual([['a', 'b', 'c']]);
      await s.close();
    });

    it('closes even when the last write fails, and says the reads were lost', async () => {
      const { s, state } = journalled(60_000);
      await s.init({ dimensions: 3 });
      await s.logReads([read('a')], []);
      state.down = true;
      expect(code(await s.close().catch((e: unknown) => e))).toBe('store_unavailable');
      expect(s.shutdowns).toBe(1);
      expect(code(await s.logReads([read('b')], []).catch((e: unknown) => e))).toBe(
        'store_unavailable',
      );
    });

    it('refuses a read of no owner before accepting anything', async () => {
      const { s, batches } = journalled(0);
      await s.init({ dimensions: 3 });
      expect(
        code(await s.logReads([{ ...read('a'), ownerId: ' ' }], []).catch((e: unknown) => e)),
      ).toBe('owner_required');
      await s.flush();
      expect(batches).toEqual([]);
      await s.close();
    });
  });
});
