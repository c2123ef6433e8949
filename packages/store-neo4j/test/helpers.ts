// Test helpers for the Neo4j store: a store on the test server (for one
// test file), random owners, hand-built Memory records, random unit vectors,
// and direct Cypher.
// What the SQLite store's tests build the same way is shared with them from
// its test/store-fixtures.ts (core is all it needs).
import neo4j from 'neo4j-driver';
import { afterAll, beforeAll } from 'vitest';
import { createNeo4jStore } from '../src/index.ts';
import type { Neo4jMemoryStore, Neo4jStoreOptions } from '../src/index.ts';
import { dimensionFixtures } from '../../store-sqlite/test/store-fixtures.ts';
import { neo4jUri, releaseNeo4j } from './neo4j-uri.ts';

export * from '../../store-sqlite/test/store-fixtures.ts';

/**
 * The embedding dimension. One Neo4j database has one vector index, sized
 * by the first init(); the conformance suite's model (all-MiniLM) has 384,
 * so the store tests use 384 too and can share the database with it.
 */
export const DIM = 384;

export const { randomUnitVector, batchOf } = dimensionFixtures(DIM);

/** An initialised store; `done()` closes it. */
export async function openStore(
  uri: string,
  opts: Partial<Neo4jStoreOptions> = {},
): Promise<{ store: Neo4jMemoryStore; done: () => Promise<void> }> {
  const store = createNeo4jStore({ uri, ...opts });
  await store.init({ dimensions: DIM });
  return { store, done: () => store.close() };
}

/**
 * One store for all of a file's tests, on this worker's Neo4j, closed after
 * the last; `use` receives it with the server's URI, to keep in the file's
 * own variables.
 */
export function storeForFile(
  use: (opened: { store: Neo4jMemoryStore; uri: string }) => void,
): void {
  let done = async (): Promise<void> => {};
  beforeAll(async () => {
    const uri = await neo4jUri();
    const opened = await openStore(uri);
    done = opened.done;
    use({ store: opened.store, uri });
  });
  afterAll(async () => {
    await done();
    await releaseNeo4j();
  });
}

/** Run one Cypher statement on the store's driver; records as plain objects. */
export async function cypherRows<T = Record<string, unknown>>(
  store: Neo4jMemoryStore,
  query: string,
  params: Record<string, unknown> = {},
): Promise<T[]> {
  const r = await store.driver.executeQuery(query, params, { database: store.database });
  return r.records.map((x) => x.toObject() as T);
}

/** A number from a Cypher count. */
export function n(v: unknown): number {
  return neo4j.isInt(v) ? (v as { toNumber(): number }).toNumber() : Number(v);
}

/** `v` plus a little noise, renormalised: a query near `v`. */
export function near(v: Float32Array, noise = 0.05): Float32Array {
  const out = new Float32Array(v.length);
  let norm = 0;
  for (let i = 0; i < v.length; i++) {
    const x = (v[i] ?? 0) + ((Math.random() * 2 - 1) * noise) / Math.sqrt(v.length);
    out[i] = x;
    norm += x * x;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < v.length; i++) out[i] = (out[i] ?? 0) / norm;
  return out;
}

/** Letters only, so full-text tokenisation keeps it one distinctive word. */
export function randomWord(prefix = 'zq'): string {
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  let w = prefix;
  for (let i = 0; i < 12; i++) w += letters[Math.floor(Math.random() * letters.length)];
  return w;
}
