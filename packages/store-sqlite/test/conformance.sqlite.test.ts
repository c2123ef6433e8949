// Runs the store conformance suite (@keepgraph/store-conformance) on the
// embedded SQLite store, file-backed (so the raw-bytes probes see exactly
// what is at rest); the retrieval suite on the real model, the others on
// the hashing embedder (harness.ts says why).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { createHashingEmbedder, createTransformersEmbedder } from '@keepgraph/embedder';
import { createSqliteStore } from '@keepgraph/store-sqlite';
import { rawFilesAsIs, tamperAuditEvent } from '@keepgraph/store-sqlite/testing';
import type { Embedder } from '@keepgraph/core/ports';
import { runMemoryStoreConformance } from '@keepgraph/store-conformance';

const dir = mkdtempSync(join(tmpdir(), 'kg-conformance-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
let model: Promise<Embedder> | null = null;
/** The hashing embedder at the model's size, for the suites not about meaning. */
const hashing = createHashingEmbedder(384);

// Twice: as shipped (sqlite-vec answers owners below 10,000 vectors, so
// every owner here), and with the in-memory vector index serving every owner.
for (const [name, vectorIndexMinVectors] of [
  ['sqlite', undefined],
  ['sqlite, vector index for every owner', 0],
] as const) {
  runMemoryStoreConformance({
    name,
    async makeStore() {
      const store = createSqliteStore({
        path: join(dir, `kg-${++n}.db`),
        ...(vectorIndexMinVectors === undefined ? {} : { vectorIndexMinVectors }),
      });
      return {
        store,
        // The files as they are on disk, WAL included: no probe checkpoint, so
        // a deletion must clear the WAL itself.
        rawContent: async () => rawFilesAsIs(store),
        tamperAuditEvent: (seq) => tamperAuditEvent(store, seq),
        close: () => store.close(),
      };
    },
    embedder: async () => hashing,
    modelEmbedder: () => (model ??= createTransformersEmbedder()),
  });
}
