// The vector index on Memory.embedding. Its dimension is only known at
// init() time (from the embedder), so it is created here rather than in a
// numbered migration, under the migration lock; the dimension is recorded
// on a (:KeepGraphMeta {key: 'vector_dimensions'}) node, and a store opened
// with another dimension is refused instead of silently mixing vector spaces.
import { KeepGraphError } from '@keepgraph/core';
import { NEO4J_INDEXES } from '@keepgraph/graph-schema';
import neo4j from 'neo4j-driver';
import type { Driver } from 'neo4j-driver';
import { num } from './transactions.ts';

/** Neo4j 5.26's upper bound on vector index dimensions. */
export const MAX_DIMENSIONS = 4096;

const META_KEY = 'vector_dimensions';

/** Create the vector index for `dimensions`, or check that the existing one has it. */
export async function ensureVectorIndex(
  driver: Driver,
  database: string | undefined,
  dimensions: number,
): Promise<void> {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_DIMENSIONS) {
    throw new KeepGraphError(
      'invalid_input',
      `dimensions must be an integer in [1, ${MAX_DIMENSIONS}]`,
      {
        dimensions,
      },
    );
  }
  const session = driver.session({ database, defaultAccessMode: neo4j.session.WRITE });
  try {
    const meta = await session.executeRead((tx) =>
      tx.run('MATCH (k:KeepGraphMeta {key: $key}) RETURN k.value AS value', { key: META_KEY }),
    );
    const shown = await session.run(
      'SHOW INDEXES YIELD name, type, options WHERE name = $name RETURN type, options',
      { name: NEO4J_INDEXES.memoryEmbedding },
    );
    const recorded = meta.records[0]?.get('value');
    const index = shown.records[0];
    const indexDims = index
      ? num(
          (index.get('options') as { indexConfig?: Record<string, unknown> }).indexConfig?.[
            'vector.dimensions'
          ],
        )
      : null;
    const existing = recorded !== undefined && recorded !== null ? num(recorded) : indexDims;
    if (existing !== null && existing !== dimensions) {
      throw new KeepGraphError(
        'invalid_input',
        `this store was created for ${existing}-dimensional embeddings, not ${dimensions}; use the same embedding model or a new database`,
        { existing, requested: dimensions },
      );
    }
    if (!index) {
      // The index name is a constant (DDL names cannot be parameters); the
      // options are a parameter, the dimension an INTEGER (a FLOAT is refused).
      await session.run(
        `CREATE VECTOR INDEX ${NEO4J_INDEXES.memoryEmbedding} IF NOT EXISTS
         FOR (m:Memory) ON m.embedding OPTIONS $options`,
        {
          options: {
            indexConfig: {
              'vector.dimensions': neo4j.int(dimensions),
              'vector.similarity_function': 'cosine',
            },
          },
        },
      );
    }
    await session.executeWrite((tx) =>
      tx.run('MERGE (k:KeepGraphMeta {key: $key}) ON CREATE SET k.value = $value', {
        key: META_KEY,
        value: neo4j.int(dimensions),
      }),
    );
    await session.run('CALL db.awaitIndexes(300)');
  } finally {
    await session.close();
  }
}
