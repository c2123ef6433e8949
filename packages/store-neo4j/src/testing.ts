// Probes for tests (the shared conformance suite's StoreUnderTest): a dump
// of everything the database holds that Cypher can read, and a tamper that
// edits one audit event behind the store's back, and a wipe of all data but
// the schema between test files. Not for production paths.
import neo4j from 'neo4j-driver';
import { NEO4J_INDEXES, NEO4J_LABELS } from '@keepgraph/graph-schema';
import type { Neo4jMemoryStore } from './neo4j-store.ts';

/** Embeddings are summarised in the dump: numbers cannot hold a text, and 384 floats a node dwarf the rest. */
function summarise(props: Record<string, unknown>): Record<string, unknown> {
  const out = { ...props };
  if (Array.isArray(out.embedding)) out.embedding = `[vector of ${out.embedding.length}]`;
  return out;
}

/**
 * Every node's labels and properties, every relationship's type and
 * properties, and every document the full-text index returns, as JSON: a
 * forgotten or refused text must appear in none of them. This probe is
 * logical: bytes on disk (Neo4j's transaction logs, Lucene segments not yet
 * merged) are outside what the store controls, and are erased by log
 * rotation and segment merges, not by a transaction.
 */
export async function rawContent(store: Neo4jMemoryStore): Promise<Buffer> {
  const session = store.driver.session({
    database: store.database,
    defaultAccessMode: neo4j.session.READ,
  });
  try {
    const parts: string[] = [];
    const nodes = await session.run('MATCH (n) RETURN labels(n) AS labels, properties(n) AS props');
    for (const r of nodes.records) {
      parts.push(JSON.stringify({ labels: r.get('labels'), props: summarise(r.get('props')) }));
    }
    const rels = await session.run(
      'MATCH ()-[r]->() RETURN type(r) AS type, properties(r) AS props',
    );
    for (const r of rels.records)
      parts.push(JSON.stringify({ type: r.get('type'), props: r.get('props') }));
    // The full-text index asked for all its documents ('*:*' is Lucene's
    // match-all), so a stale entry would show up even without its node.
    const docs = await session.run(
      'CALL db.index.fulltext.queryNodes($index, $all) YIELD node RETURN node.id AS id, node.text AS text',
      { index: NEO4J_INDEXES.memoryText, all: '*:*' },
    );
    for (const r of docs.records)
      parts.push(JSON.stringify({ fulltext: r.get('id'), text: r.get('text') }));
    return Buffer.from(parts.join('\n'), 'utf8');
  } finally {
    await session.close();
  }
}

/**
 * Change one stored audit event's actor as an attacker with database access
 * would, through a separate session. Resolves to a function that puts the
 * original back, so a database shared between tests has a whole chain again.
 */
export async function tamperAuditEvent(
  store: Neo4jMemoryStore,
  seq: number,
): Promise<() => Promise<void>> {
  const session = store.driver.session({
    database: store.database,
    defaultAccessMode: neo4j.session.WRITE,
  });
  let original: string;
  try {
    const r = await session.executeWrite((tx) =>
      tx.run(
        `MATCH (e:AuditEvent {seq: $seq})
         WITH e, e.actor AS original
         SET e.actor = original + ' (edited)'
         RETURN original`,
        { seq: neo4j.int(seq) },
      ),
    );
    const rec = r.records[0];
    if (!rec) throw new Error(`no audit event with seq ${seq}`);
    original = String(rec.get('original'));
  } finally {
    await session.close();
  }
  return async () => {
    const s = store.driver.session({
      database: store.database,
      defaultAccessMode: neo4j.session.WRITE,
    });
    try {
      await s.executeWrite((tx) =>
        tx.run('MATCH (e:AuditEvent {seq: $seq}) SET e.actor = $original', {
          seq: neo4j.int(seq),
          original,
        }),
      );
    } finally {
      await s.close();
    }
  };
}

/** What a wipe keeps: the migration ledger, its lease and the database's own facts (vector width). */
const SCHEMA_LABELS = [
  NEO4J_LABELS.SchemaMigration,
  NEO4J_LABELS.SchemaLock,
  NEO4J_LABELS.KeepGraphMeta,
] as const;

/**
 * Delete every node and relationship but the schema's, so a test starts on
 * an empty database as a fresh server would give it (indexes and
 * constraints stay). For test servers shared by test files that run one
 * after another; never while a store is open on the database elsewhere.
 * Resolves to the number of nodes deleted.
 */
export async function wipeData(opts: {
  uri: string;
  user?: string;
  password?: string;
  database?: string;
}): Promise<number> {
  const driver = neo4j.driver(
    opts.uri,
    opts.user !== undefined ? neo4j.auth.basic(opts.user, opts.password ?? '') : undefined,
  );
  const keep = SCHEMA_LABELS.map((l) => `n:${l}`).join(' OR ');
  const session = driver.session({
    ...(opts.database !== undefined && { database: opts.database }),
    defaultAccessMode: neo4j.session.WRITE,
  });
  try {
    // Auto-commit (CALL … IN TRANSACTIONS needs it): batches keep a big
    // database's wipe within the server's transaction memory.
    const r = await session.run(
      `MATCH (n) WHERE NOT (${keep})
       CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS
       RETURN count(*) AS deleted`,
    );
    return Number(r.records[0]?.get('deleted') ?? 0);
  } finally {
    await session.close();
    await driver.close();
  }
}
