// mem0's open-source TypeScript SDK (npm `mem0ai`, `mem0ai/oss`) as a peer in
// our benchmarks, driven the way the issue names it: the built-in `memory`
// vector store (SQLite, here `:memory:`), no history DB, `add(..., { infer:
// false })` so mem0's LLM is never called, search with `threshold: 0`, and the
// embedder through mem0's `langchain` provider wrapping OUR embedder, so both
// sides rank with the same model.
//
// What mem0ai 3.x does on that path (read from dist/oss/index.mjs):
//  - add(infer:false): each message becomes one memory (embedder.embed(text,
//    'add'), a BM25 lemma string, one INSERT); no entity linking.
//  - search: embeds the query, scans every row of the vector table (cosine in
//    JS), scans it again for BM25 over the lemmas, extracts entities from the
//    query (compromise) and embeds them (embedBatch) to look them up in the
//    entity store, then fuses the three scores and keeps `topK`.
//  - its langchain embedder calls embedQuery for memories AND queries (the
//    'add'/'search' purpose is dropped), and embedDocuments for the query's
//    entity phrases. bge wants the query instruction on queries only, so
//    add() below embeds the texts it is about to hand mem0 as documents up
//    front (one batched model call) and the adapter serves those vectors when
//    mem0 asks for them; anything else mem0 asks embedQuery for is a query.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Embedder } from '@keepgraph/core/ports';

export interface PeerHit {
  id: string;
  score: number;
  /** The metadata stored with the memory (mem0 returns it with each hit). */
  metadata?: Record<string, unknown>;
}

export interface Peer {
  readonly name: string;
  /** Store each item as one memory of `ownerId`; returns the peer's ids in input order. */
  add(
    ownerId: string,
    items: { text: string; metadata?: Record<string, unknown> }[],
  ): Promise<string[]>;
  search(ownerId: string, query: string, k: number): Promise<PeerHit[]>;
  close(): Promise<void>;
}

export interface Mem0PeerOptions {
  embedder: Embedder;
  /**
   * text → vector served instead of running the model: lets a benchmark load
   * 100k memories without embedding each one. Read on every call, so the
   * caller may fill or clear it between phases.
   */
  precomputed?: Map<string, Float32Array>;
}

/** The langchain `Embeddings` shape mem0's `langchain` embedder provider accepts. */
interface LangchainEmbeddings {
  embedQuery(text: string): Promise<number[]>;
  embedDocuments(texts: string[]): Promise<number[][]>;
}

// The slice of mem0ai/oss this peer uses. Its own .d.ts imports types from
// optional peer packages we do not install, so we type the import ourselves.
interface Mem0Memory {
  add(
    messages: { role: string; content: string }[],
    config: { userId: string; infer: boolean; metadata?: Record<string, unknown> },
  ): Promise<{ results: { id: string; memory: string }[] }>;
  search(
    query: string,
    config: { filters: { user_id: string }; topK: number; threshold: number },
  ): Promise<{ results: { id: string; score?: number; metadata?: Record<string, unknown> }[] }>;
}
interface Mem0Module {
  Memory: new (config: Record<string, unknown>) => Mem0Memory;
}

/** The installed mem0ai version (its exports map hides package.json, so read it from disk). */
export function mem0Version(): string {
  const require = createRequire(import.meta.url);
  const main = require.resolve('mem0ai'); // <pkg>/dist/index.js
  const pkg = JSON.parse(readFileSync(join(dirname(main), '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

let mem0Module: Promise<Mem0Module> | undefined;

/** Import mem0ai/oss once, with telemetry off and its config dir out of $HOME. */
function loadMem0(): Promise<Mem0Module> {
  if (!mem0Module) {
    // Read by mem0 at import time: must be set before the first import.
    process.env.MEM0_TELEMETRY = 'false';
    // mem0 writes an anonymous user id to $MEM0_DIR/config.json (default
    // ~/.mem0) even with telemetry off; keep that in a temporary directory.
    if (!process.env.MEM0_DIR) {
      const dir = mkdtempSync(join(tmpdir(), 'kg-mem0-'));
      process.env.MEM0_DIR = dir;
      process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
    }
    mem0Module = import('mem0ai/oss') as unknown as Promise<Mem0Module>;
  }
  return mem0Module;
}

export async function createMem0Peer(opts: Mem0PeerOptions): Promise<Peer> {
  const { embedder } = opts;
  const precomputed = opts.precomputed ?? new Map<string, Float32Array>();
  const { Memory } = await loadMem0();

  // Document vectors of the texts the current add() is storing.
  const pendingDocs = new Map<string, Float32Array>();
  const toArray = (v: Float32Array) => Array.from(v);
  const langchainEmbeddings: LangchainEmbeddings = {
    async embedQuery(text) {
      const v = pendingDocs.get(text) ?? precomputed.get(text);
      if (v) return toArray(v);
      const [q] = await embedder.embed([text], 'query');
      return toArray(q!);
    },
    async embedDocuments(texts) {
      const out: (Float32Array | undefined)[] = texts.map((t) => precomputed.get(t));
      const missing = texts.filter((_, i) => !out[i]);
      if (missing.length > 0) {
        const vs = await embedder.embed(missing, 'document');
        let j = 0;
        for (let i = 0; i < out.length; i++) out[i] ??= vs[j++];
      }
      return out.map((v) => toArray(v!));
    },
  };

  const memory = new Memory({
    embedder: {
      provider: 'langchain',
      config: { model: langchainEmbeddings, embeddingDims: embedder.dimensions },
    },
    vectorStore: {
      provider: 'memory',
      config: { collectionName: 'memories', dimension: embedder.dimensions, dbPath: ':memory:' },
    },
    // Never called: every add is infer:false. mem0's constructor builds an LLM
    // client regardless (the OpenAI one only stores the key; no request is made).
    llm: { provider: 'openai', config: { apiKey: 'unused-infer-false', model: 'unused' } },
    // No history table at all (the default would be ./memory.db on disk).
    disableHistory: true,
  });

  const name = `mem0ai@${mem0Version()} (oss, memory vector store)`;

  async function addGroup(
    ownerId: string,
    texts: string[],
    metadata: Record<string, unknown> | undefined,
  ): Promise<string[]> {
    const r = await memory.add(
      texts.map((content) => ({ role: 'user', content })),
      { userId: ownerId, infer: false, ...(metadata ? { metadata } : {}) },
    );
    if (r.results.length !== texts.length)
      throw new Error(`mem0 stored ${r.results.length} of ${texts.length} messages`);
    return r.results.map((m) => m.id);
  }

  return {
    name,
    async add(ownerId, items) {
      if (items.length === 0) return [];
      // Embed what is not precomputed as documents, in one batched call.
      const missing = [...new Set(items.map((i) => i.text))].filter((t) => !precomputed.has(t));
      if (missing.length > 0) {
        const vs = await embedder.embed(missing, 'document');
        missing.forEach((t, i) => pendingDocs.set(t, vs[i]!));
      }
      try {
        // One add() call stores a list of messages, but with one metadata
        // object for all of them: items without metadata go in runs,
        // items with their own metadata one call each.
        const ids: string[] = [];
        let run: string[] = [];
        const flush = async () => {
          if (run.length > 0) ids.push(...(await addGroup(ownerId, run, undefined)));
          run = [];
        };
        for (const item of items) {
          if (item.metadata === undefined) {
            run.push(item.text);
            continue;
          }
          await flush();
          ids.push(...(await addGroup(ownerId, [item.text], item.metadata)));
        }
        await flush();
        return ids;
      } finally {
        pendingDocs.clear();
      }
    },
    async search(ownerId, query, k) {
      const r = await memory.search(query, {
        filters: { user_id: ownerId },
        topK: k,
        threshold: 0,
      });
      return r.results.map((h) => ({
        id: h.id,
        score: h.score ?? 0,
        ...(h.metadata ? { metadata: h.metadata } : {}),
      }));
    },
    async close() {
      // mem0's Memory has no close(); release its in-memory SQLite databases
      // (vector table, and the entity store when a search created it).
      const internals = memory as unknown as {
        vectorStore?: { db?: { close(): void } };
        _entityStore?: { db?: { close(): void } };
      };
      internals.vectorStore?.db?.close();
      internals._entityStore?.db?.close();
    },
  };
}
