// The conformance harness: what a store package hands the suite, and the
// per-test fixture (engine over that store, a manual clock, the
// real embedding model, fresh random owner ids).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import {
  ManualClock,
  createEngine,
  defaultPolicy,
  type Caller,
  type Embedder,
  type Engine,
  type MemoryInput,
  type MemoryStore,
  type Policy,
  type WriteBatch,
} from '@keepgraph/core';

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
  /** The real embedding model (loaded once by the caller). */
  embedder(): Promise<Embedder>;
}

export interface Fixture {
  engine: Engine;
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

export async function makeFixture(
  opts: ConformanceOptions,
  sut: StoreUnderTest,
  tweak: { policy?: (p: Policy) => Policy; start?: string } = {},
): Promise<Fixture> {
  const embedder = await opts.embedder();
  await sut.store.init({ dimensions: embedder.dimensions });
  const policy = tweak.policy ? tweak.policy(defaultPolicy()) : defaultPolicy();
  const clock = new ManualClock(tweak.start ?? new Date().toISOString());
  const engine = createEngine({ store: sut.store, embedder, policy, clock });
  return { engine, clock, sut, policy, owner: () => `owner-${randomUUID()}` };
}

/**
 * The fixture of a describe block: made in its beforeAll on a fresh store,
 * closed in its afterAll. Returned at once as a stand-in that reads the
 * fixture once it exists, so a suite writes `const f = sharedFixture(opts)`.
 */
export function sharedFixture(
  opts: ConformanceOptions,
  tweak: Parameters<typeof makeFixture>[2] = {},
): Fixture {
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

/** Assert a promise rejects with a KeepGraphError of this code (never the message). */
export async function expectCode(p: Promise<unknown>, code: string): Promise<void> {
  let err: unknown;
  try {
    await p;
  } catch (e) {
    err = e;
  }
  if (!err) throw new Error(`expected error code ${code}, but the call succeeded`);
  const got = (err as { code?: string }).code;
  if (got !== code) throw new Error(`expected error code ${code}, got ${got ?? String(err)}`);
}
