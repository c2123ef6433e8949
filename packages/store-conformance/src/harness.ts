// The conformance harness: what a store package hands the suite, the
// per-test fixture (engine over that store, a manual clock, the
// suite's embedder, fresh random owner ids), the describe block every
// suite is, and the inputs and probes that recur across suites.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe } from 'vitest';
import {
  createEngine,
  type Caller,
  type Engine,
  type Memory,
  type MemoryInput,
} from '@keepgraph/core';
import { defaultPolicy, type Policy } from '@keepgraph/core/policy';
import {
  ManualClock,
  type Embedder,
  type MemoryStore,
  type OutboxEntry,
  type WriteBatch,
} from '@keepgraph/core/ports';
import { auditEventFixture, randomUnitVector } from '@keepgraph/core/testing';

/** A store instance under test plus the store-specific probes the suite needs. */
export interface StoreUnderTest {
  store: MemoryStore;
  /**
   * Every byte the store keeps at rest (database file, WAL, index files), so
   * the suite can prove a refused secret or a forgotten text is nowhere.
   */
  rawContent(): Promise<Buffer>;
  /**
   * Change one stored audit event behind the engine's back (tamper test);
   * resolves to a function that restores it, for stores shared between tests.
   */
  tamperAuditEvent(seq: number): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface ConformanceOptions {
  /** Store name for test titles: 'sqlite', 'neo4j'. */
  name: string;
  /** A fresh, empty-enough store (tests use random owners, so sharing is fine). */
  makeStore(): Promise<StoreUnderTest>;
  /**
   * The embedder of the suites whose assertions do not depend on what a
   * text means (all but retrieval): a deterministic one, such as the
   * hashing embedder at the model's dimensions. The real model took most
   * of the suite's CPU for nothing it asserts (SQLite's file: 62 s of CPU
   * with it, 24 s without).
   */
  embedder(): Promise<Embedder>;
  /**
   * The real embedding model, for the suites about meaning (retrieval).
   * Same dimensions as `embedder`: every store of a run may share one
   * database, whose vector index has one size. Loaded once by the caller.
   */
  modelEmbedder(): Promise<Embedder>;
  /** Memories the paging test lists while writes go on (default 10,000; at least 1,000). */
  listingMemories?: number;
}

export interface Fixture {
  engine: Engine;
  /** The store under test, as the engine holds it (for the port's own calls). */
  store: MemoryStore;
  clock: ManualClock;
  sut: StoreUnderTest;
  policy: Policy;
  /** A fresh random owner id. */
  owner(): string;
}

export const operator: Caller = { role: 'operator', owners: 'all', principal: 'op:test' };
export const user: Caller = { role: 'user', owners: 'all', principal: 'user:test' };
export const agent: Caller = { role: 'agent', owners: 'all', principal: 'agent:test' };
export const tool: Caller = { role: 'tool', owners: 'all', principal: 'tool:test' };

/** How a suite's fixture differs from the default: its policy, its clock's start, its embedder. */
export interface FixtureTweak {
  policy?: (p: Policy) => Policy;
  start?: string;
  /** The suite asserts what texts mean: the real model embeds (`modelEmbedder`). */
  meaning?: boolean;
}

export async function makeFixture(
  opts: ConformanceOptions,
  sut: StoreUnderTest,
  tweak: FixtureTweak = {},
): Promise<Fixture> {
  const embedder = await opts.embedder();
  const model = tweak.meaning ? await opts.modelEmbedder() : null;
  // Checked where the model is used: the other suites need not load it.
  if (model && model.dimensions !== embedder.dimensions)
    throw new Error(
      `the conformance embedders differ in size (${model.modelId}: ${model.dimensions}, ${embedder.modelId}: ${embedder.dimensions}): give embedder the model's dimensions`,
    );
  await sut.store.init({ dimensions: embedder.dimensions });
  const policy = tweak.policy ? tweak.policy(defaultPolicy()) : defaultPolicy();
  const clock = new ManualClock(tweak.start ?? new Date().toISOString());
  const engine = createEngine({ store: sut.store, embedder: model ?? embedder, policy, clock });
  return {
    engine,
    store: sut.store,
    clock,
    sut,
    policy,
    owner: () => `owner-${randomUUID()}`,
  };
}

/**
 * The fixture of a describe block: made in its beforeAll on a fresh store,
 * closed in its afterAll. Returned at once as a stand-in that reads the
 * fixture once it exists, so a suite writes `const f = sharedFixture(opts)`.
 */
export function sharedFixture(opts: ConformanceOptions, tweak: FixtureTweak = {}): Fixture {
  let fixture: Fixture | undefined;
  beforeAll(async () => {
    fixture = await makeFixture(opts, await opts.makeStore(), tweak);
  });
  afterAll(() => fixture?.sut.close());
  return new Proxy({} as Fixture, {
    get(_t, prop) {
      if (!fixture) throw new Error('the fixture is made in beforeAll: use it inside a test');
      return fixture[prop as keyof Fixture];
    },
  });
}

/** One suite: runMemoryStoreConformance calls each with the store's options. */
export type Suite = (opts: ConformanceOptions) => void;

/**
 * A suite that is one describe block over one shared fixture, as nearly
 * every suite is: `conformanceSuite(title, (f) => { it(...) })`. The tests
 * get the options too, for a suite that needs a second fixture.
 */
export function conformanceSuite(
  title: string,
  tests: (f: Fixture, opts: ConformanceOptions) => void,
): Suite;
export function conformanceSuite(
  title: string,
  tweak: FixtureTweak,
  tests: (f: Fixture, opts: ConformanceOptions) => void,
): Suite;
export function conformanceSuite(
  title: string,
  ...args:
    | [(f: Fixture, opts: ConformanceOptions) => void]
    | [FixtureTweak, (f: Fixture, opts: ConformanceOptions) => void]
): Suite {
  const [tweak, tests] = args.length === 1 ? [{}, args[0]] : args;
  return (opts) => describe(title, () => tests(sharedFixture(opts, tweak), opts));
}

/** A write batch with nothing in it but `over`. */
export function batchOf(over: Partial<WriteBatch>): WriteBatch {
  return { memories: [], supersede: [], sessionMessages: [], audit: [], ...over };
}

let turn = 0;
/** A user episode observed in a session. */
export function episode(text: string, extra: Partial<MemoryInput> = {}): MemoryInput {
  turn++;
  return { kind: 'episode', text, origin: { sessionId: 'S1', turn: `T${turn}` }, ...extra };
}

/** {@link episode}, remembered for `ownerId` as the user tells it: the suite's most common write. */
export function userEpisode(
  f: Fixture,
  ownerId: string,
  text: string,
  extra: Partial<MemoryInput> = {},
): ReturnType<Engine['remember']> {
  return f.engine.remember(user, ownerId, episode(text, extra));
}

/** A derived memory (agent_inferred) built from `sources`. */
export function derived(
  text: string,
  sources: string[],
  extra: Partial<MemoryInput> = {},
): MemoryInput {
  return {
    kind: 'summary',
    text,
    authority: 'agent_inferred',
    derivedFrom: sources,
    origin: { extractor: { name: 'test-extractor', version: '1' } },
    ...extra,
  };
}

/** A fact said in session S1 (the episodes' session), with `extra` on top. */
export function fact(text: string, extra: Partial<MemoryInput> = {}): MemoryInput {
  return { kind: 'fact', text, origin: { sessionId: 'S1' }, ...extra };
}

/** What a web page at `uri` says: third-party, the page its origin. */
export function pageSays(text: string, uri: string, extra: Partial<MemoryInput> = {}): MemoryInput {
  return {
    kind: 'fact',
    text,
    authority: 'third_party',
    origin: { source: { kind: 'url', uri } },
    ...extra,
  };
}

/** What a tool call returned, as a fact with the tool its origin. */
export function toolSays(
  text: string,
  tool: { name: string; callId?: string },
  extra: Partial<MemoryInput> = {},
): MemoryInput {
  return { kind: 'fact', text, origin: { tool }, ...extra };
}

/**
 * What revoking a page takes and leaves: the page's claim, a summary derived
 * from it, and an episode of the owner's own.
 */
export async function pageWithSummary(
  f: Fixture,
  ownerId: string,
  uri: string,
): Promise<{ web: Memory; sum: Memory; keep: Memory }> {
  const remember = async (input: MemoryInput) =>
    (await f.engine.remember(user, ownerId, input)).memory;
  const web = await remember(
    pageSays('The conference venue changed to Hall B according to the event page', uri),
  );
  const sum = await remember(derived('Conference is in Hall B', [web.id]));
  const keep = await remember(episode('I booked the hotel next to the venue myself'));
  return { web, sum, keep };
}

/**
 * An instant strictly between the writes before and after it, for the
 * created/observed before/after filters: the clock moves a second, the
 * instant is taken, and the clock moves a second again.
 */
export function instantBetweenWrites(f: Fixture): string {
  f.clock.advance(1000);
  const mark = f.clock.now().toISOString();
  f.clock.advance(1000);
  return mark;
}

/** A value for putByKey (a `kv` memory), said in session `sessionId`. */
export function kv(
  text: string,
  sessionId = 'kv',
): { text: string; origin: { sessionId: string } } {
  return { text, origin: { sessionId } };
}

/**
 * Write fixture memories straight to the store, in one batch with one
 * `write` audit event naming them; each has a random vector of the model's
 * size unless `embedding` says otherwise (null: none).
 */
export function putMemories(
  f: Fixture,
  ms: Memory[],
  embedding: (m: Memory) => Float32Array | null = () =>
    randomUnitVector(f.engine.deps.embedder.dimensions),
): Promise<void> {
  return f.store.write(
    batchOf({
      memories: ms.map((memory) => ({ memory, embedding: embedding(memory) })),
      audit: [
        auditEventFixture(
          'write',
          ms[0]!.ownerId,
          ms.map((m) => m.id),
        ),
      ],
    }),
  );
}

/**
 * The pending outbox entries of these owners, in the store's order. The
 * outbox is read across owners and shared by every test on a store, so a
 * test looks only at its own.
 */
export async function pendingJobs(f: Fixture, ...owners: string[]): Promise<OutboxEntry[]> {
  return (await f.store.outboxPending(100_000)).filter((e) => owners.includes(e.job.ownerId));
}

/**
 * A source of fresh owners whose pending jobs are acknowledged once the
 * suite is done, so that no other suite on the store reads them.
 */
export function ownersWithJobs(f: Fixture): () => string {
  const owners: string[] = [];
  afterAll(async () => {
    if (owners.length)
      await f.store.outboxAck((await pendingJobs(f, ...owners)).map((e) => e.job.id));
  });
  return () => {
    const o = f.owner();
    owners.push(o);
    return o;
  };
}

/** verifyForgotten of everything a deletion's receipt names, ids and content hashes. */
export function verifyReceipt(
  f: Fixture,
  ownerId: string,
  receipt: { deletedMemoryIds: string[]; deletedContentHashes: string[] },
) {
  return f.engine.verifyForgotten(user, ownerId, {
    ids: receipt.deletedMemoryIds,
    contentHashes: receipt.deletedContentHashes,
  });
}

/** The bytes the store keeps at rest, read now, as a probe: whether they hold `text` anywhere. */
export async function atRest(f: Fixture): Promise<(text: string) => boolean> {
  const raw = await f.sut.rawContent();
  return (text) => raw.includes(Buffer.from(text));
}

/** What a promise rejects with; undefined when it resolves. */
export async function rejectionOf(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  return undefined;
}

/** Assert a promise rejects with a KeepGraphError of this code (never the message). */
export async function expectCode(p: Promise<unknown>, code: string): Promise<void> {
  const err = await rejectionOf(p);
  if (!err) throw new Error(`expected error code ${code}, but the call succeeded`);
  const got = (err as { code?: string }).code;
  if (got !== code) throw new Error(`expected error code ${code}, got ${got ?? String(err)}`);
}
