// Running the benchmark: each conversation is ingested under a fresh owner
// through the engine's normal write path, then each question is answered by
// the engine (or, for a baseline, by one of the store's retrievers alone) and
// the hits are turned into the ranked turn ids the spec defines.
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Caller, Engine, MemoryInput } from '@keepgraph/core';
import type { Conversation } from './dataset.ts';
import type { ResultLine } from './results.ts';

/** What answers the questions: the full engine, or one retriever of the store. */
export const RETRIEVERS = ['engine', 'bm25', 'vector'] as const;
/** One of {@link RETRIEVERS}. */
export type Retriever = (typeof RETRIEVERS)[number];

/** The engine's recall serves at most this many results. */
export const MAX_TOP_K = 100;

/** Turns per rememberMany call: the import command's default batch. */
export const INGEST_BATCH = 64;

/** What ingesting one conversation did. */
export interface IngestSummary {
  turns: number;
  stored: number;
  refused: number;
  refusedByCode: Record<string, number>;
}

/** One conversation, ingested: its owner and which memory came from which turn. */
export interface IngestedConversation {
  ownerId: string;
  turnOf: Map<string, string>;
  summary: IngestSummary;
}

/**
 * Ingest every turn as a user-authority episode, in batches. Refusals by
 * the policy are counted by code and not retried: a refused turn is simply
 * not retrievable, which is the engine's honest behaviour.
 */
/**
 * A fresh owner id for a conversation: its id and eight random letters
 * (a-p). Not hex: about one hex suffix in fifty is all digits, and
 * "eval-conv-26-23284388" reads as a phone number, so the policy refused
 * every write of that owner (an owner id cannot be redacted) and the run
 * scored that conversation as empty.
 */
export function evalOwnerId(conversationId: string): string {
  const letters = [...randomBytes(4)].map((b) => String.fromCharCode(97 + (b >> 4), 97 + (b & 15)));
  return `eval-${conversationId}-${letters.join('')}`;
}

export async function ingestConversation(
  engine: Engine,
  caller: Caller,
  conv: Conversation,
  batchSize = INGEST_BATCH,
): Promise<IngestedConversation> {
  // A fresh owner per run, so re-running on one data directory never mixes histories.
  const ownerId = evalOwnerId(conv.id);
  const turnOf = new Map<string, string>();
  const summary: IngestSummary = {
    turns: conv.turns.length,
    stored: 0,
    refused: 0,
    refusedByCode: {},
  };
  for (let i = 0; i < conv.turns.length; i += batchSize) {
    const batch = conv.turns.slice(i, i + batchSize);
    const inputs: MemoryInput[] = batch.map((t) => ({
      kind: 'episode',
      text: t.text,
      origin: {
        sessionId: t.sessionId,
        turn: t.id,
        speaker: t.speaker,
        ...(t.timestamp ? { observedAt: t.timestamp } : {}),
      },
    }));
    const r = await engine.rememberMany(caller, ownerId, inputs);
    // rememberMany returns stored memories in input order, skipping failures.
    const failed = new Set(r.failed.map((f) => f.index));
    const storedTurns = batch.filter((_, j) => !failed.has(j));
    r.stored.forEach((m, j) => turnOf.set(m.id, storedTurns[j]!.id));
    summary.stored += r.stored.length;
    for (const f of r.failed) {
      summary.refused++;
      summary.refusedByCode[f.code] = (summary.refusedByCode[f.code] ?? 0) + 1;
    }
  }
  return { ownerId, turnOf, summary };
}

/**
 * Ranked memory ids to ranked turn ids: an episode contributes its own turn,
 * a derived memory the turns of the episodes in its lineage (in lineage
 * order); ids already listed are dropped.
 */
export async function turnIdsOf(
  engine: Engine,
  caller: Caller,
  conv: IngestedConversation,
  memoryIds: readonly string[],
): Promise<string[]> {
  const out: string[] = [];
  const seen = new Set<string>();
  const push = (t: string | undefined) => {
    if (t !== undefined && !seen.has(t)) {
      seen.add(t);
      out.push(t);
    }
  };
  for (const id of memoryIds) {
    const own = conv.turnOf.get(id);
    if (own !== undefined) {
      push(own);
      continue;
    }
    // Not one of the ingested episodes: a derived memory (e.g. built by a worker).
    const graph = await engine.lineage(caller, conv.ownerId, id);
    for (const node of graph.nodes) {
      if (node.key === id || node.attributes.kind !== 'episode') continue;
      push(conv.turnOf.get(node.key));
    }
  }
  return out;
}

/** Retrieve for one question; returns ranked memory ids and the time of the one retrieval call. */
async function retrieve(
  engine: Engine,
  caller: Caller,
  ownerId: string,
  question: string,
  k: number,
  retriever: Retriever,
  askedAt?: string,
): Promise<{ ids: string[]; latencyMs: number }> {
  const { store, embedder, clock } = engine.deps;
  const now = clock.now().toISOString();
  const t0 = performance.now();
  let ids: string[];
  if (retriever === 'engine') {
    const r = await engine.recall(caller, ownerId, question, {
      topK: k,
      ...(askedAt ? { askedAt } : {}),
    });
    ids = r.results.map((h) => h.memory.id);
  } else if (retriever === 'bm25') {
    ids = (await store.searchText(ownerId, question, { limit: k, now })).map((s) => s.id);
  } else {
    // The query embedding is part of a vector retrieval, as it is of a recall.
    const [v] = await embedder.embed([question], 'query');
    ids = v ? (await store.searchVector(ownerId, v, { limit: k, now })).map((s) => s.id) : [];
  }
  const latencyMs = Math.round((performance.now() - t0) * 100) / 100;
  return { ids, latencyMs };
}

/**
 * The spec asks for at least k ids where the owner has that many turns. A
 * retriever that finds fewer (BM25 matches only turns sharing a word with the
 * question) is followed by the stored turns it did not find, in the order
 * they were written: an unranked tail, the same for every retriever.
 */
export function padWithUnretrieved(
  turnIds: readonly string[],
  storedTurns: Iterable<string>,
  k: number,
): { turnIds: string[]; padded: boolean } {
  if (turnIds.length >= k) return { turnIds: [...turnIds], padded: false };
  const out = [...turnIds];
  const seen = new Set(out);
  for (const t of storedTurns) {
    if (out.length >= k) break;
    if (!seen.has(t)) {
      seen.add(t);
      out.push(t);
    }
  }
  return { turnIds: out, padded: out.length > turnIds.length };
}

/** Answer every question of one ingested conversation, in dataset order. */
export async function answerQuestions(
  engine: Engine,
  caller: Caller,
  conv: Conversation,
  ingested: IngestedConversation,
  k: number,
  retriever: Retriever,
): Promise<{ lines: ResultLine[]; padded: number }> {
  const lines: ResultLine[] = [];
  let padded = 0;
  for (const q of conv.questions) {
    const { ids, latencyMs } = await retrieve(
      engine,
      caller,
      ingested.ownerId,
      q.question,
      k,
      retriever,
      q.askedAt,
    );
    const found = await turnIdsOf(engine, caller, ingested, ids);
    const listed = padWithUnretrieved(found, ingested.turnOf.values(), k);
    if (listed.padded) padded++;
    lines.push({ questionId: q.id, turnIds: listed.turnIds, latencyMs });
  }
  return { lines, padded };
}
