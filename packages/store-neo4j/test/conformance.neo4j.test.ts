// Runs the store conformance suite (@keepgraph/store-conformance) on the
// Neo4j store against a real Neo4j (NEO4J_URI, or this Vitest worker's test
// server, as test/global-setup.ts started it); the retrieval suite on the
// real embedding model, the others on the hashing embedder (harness.ts says
// why). Neo4j Community has one database, so every store shares it; the
// suite's random owner ids keep tests apart.
import { createHashingEmbedder, createTransformersEmbedder } from '@keepgraph/embedder';
import { createNeo4jStore } from '@keepgraph/store-neo4j';
import { rawContent, tamperAuditEvent } from '@keepgraph/store-neo4j/testing';
import type { Embedder } from '@keepgraph/core/ports';
import { runMemoryStoreConformance } from '@keepgraph/store-conformance';
import { scaled } from '../../../test/scale.ts';
import { neo4jAuth, neo4jUri } from '../../../test/services.ts';

let model: Promise<Embedder> | null = null;
/** The hashing embedder at the model's size, for the suites not about meaning. */
const hashing = createHashingEmbedder(384);

runMemoryStoreConformance({
  name: 'neo4j',
  async makeStore() {
    const store = createNeo4jStore({
      uri: neo4jUri(),
      ...neo4jAuth(),
    });
    return {
      store,
      rawContent: () => rawContent(store),
      tamperAuditEvent: (seq) => tamperAuditEvent(store, seq),
      close: () => store.close(),
    };
  },
  embedder: async () => hashing,
  modelEmbedder: () => (model ??= createTransformersEmbedder()),
  // Paging while writes go on: seeding 10,000 was a fifth of this file on
  // Neo4j; SQLite's run pages through the full 10,000.
  listingMemories: scaled('KG_LISTING_MEMORIES', { ci: 2_000, full: 10_000 }),
});
