// Fusion and rescoring for recall, as pure functions: candidate lists in,
// ordered results with a score breakdown out. No store, no clock reads.
import type { RecallConfig } from './recall-config.ts';
import type { Memory } from './record.ts';
import type { ScoredId } from '../ports/memory-store.ts';
import { observedInWindows, type TimeWindow } from './query-time.ts';
import { keysOnly, lendScoreToSources } from './derived-keys.ts';
import type { FusedEntry, FusedRetriever, Ranked } from './scoring.ts';

export type {
  FusedEntry,
  FusedRetriever,
  Ranked,
  RetrieverName,
  ScoreBreakdown,
} from './scoring.ts';

const DAY_MS = 86_400_000;

/**
 * The retrievers whose scores measure how well a memory matches (cosine
 * similarity, BM25); the others' scores are ranks in disguise (an entity hit
 * is 1, a derived neighbour carries its seed's fused score).
 */
const SCORED: ReadonlySet<FusedRetriever> = new Set(['vector', 'text']);

/**
 * Fusion of named candidate lists: reciprocal rank fusion, with part of the
 * vector and full-text retrievers' share taken from their scores instead
 * (config.scoreShare). Ranks alone hear "first" the same whether the first
 * is far ahead or barely so, and a memory only one retriever finds, however
 * well, loses to one both find middling: a preference said once in words
 * unlike the question's is the vector search's clear first and full text's
 * nothing. A score counts as its place between the list's last and first
 * (min-max): the scale differs by retriever and by store (SQLite's BM25 is
 * not Lucene's; Neo4j gives cosine as (1 + cos) / 2) and the place does not.
 * A list shorter than config.candidates takes a smaller share, in
 * proportion.
 * The first of a list gets what rank 1 gets, so the ceiling is unchanged.
 */
export function fuse(
  lists: Partial<Record<FusedRetriever, ScoredId[]>>,
  config: RecallConfig,
): Map<string, FusedEntry> {
  const out = new Map<string, FusedEntry>();
  for (const [name, list] of Object.entries(lists) as [FusedRetriever, ScoredId[]][]) {
    const w = config.weights[name];
    // A short list is every match the store had: its last is not a poor
    // match but the last of a few, and min-max over three scores would
    // still give it nothing. The share grows with the list to its full
    // size, where the last is the candidates-th best, a fair "unrelated".
    const share = SCORED.has(name)
      ? config.scoreShare * Math.min(1, list.length / config.candidates)
      : 0;
    const best = list[0]?.score ?? 0;
    const last = list.at(-1)?.score ?? 0;
    list.forEach((hit, i) => {
      const entry = out.get(hit.id) ?? { ranks: {}, raw: {}, fused: 0 };
      if (entry.ranks[name] !== undefined) return; // first (best) rank wins
      entry.ranks[name] = i + 1;
      entry.raw[name] = hit.score;
      const place = best > last ? (hit.score - last) / (best - last) : 1;
      entry.fused +=
        w * ((1 - share) / (config.rrfK + i + 1) + (share * place) / (config.rrfK + 1));
      out.set(hit.id, entry);
    });
  }
  return out;
}

/** 1 for a memory observed now, falling towards (1 - weight) with age. */
export function recencyFactor(observedAt: string, now: Date, config: RecallConfig): number {
  if (config.recencyHalfLifeDays <= 0 || config.recencyWeight <= 0) return 1;
  const ageDays = Math.max(0, (now.getTime() - new Date(observedAt).getTime()) / DAY_MS);
  const decay = Math.pow(0.5, ageDays / config.recencyHalfLifeDays);
  return 1 - config.recencyWeight + config.recencyWeight * decay;
}

export function confidenceFactor(confidence: number, config: RecallConfig): number {
  return 1 - config.confidenceWeight + config.confidenceWeight * confidence;
}

/** The highest fused score possible: rank 1 in every retriever. */
function maxFused(config: RecallConfig): number {
  const w = config.weights;
  return (w.vector + w.text + w.entity + w.derived) / (config.rrfK + 1);
}

/** What rankCandidates reads of the derived memories among the candidates (derived-keys.ts). */
export interface DerivedRanking {
  /** Filled in: source id -> the derived memories that raised it, best first. */
  via: Map<string, string[]>;
  /** Compaction summaries standing in for their true duplicates: results even when wide. */
  standingIn: ReadonlySet<string>;
}

/**
 * Rescore fused candidates; let derived ones lend their score to their
 * sources and leave out those that are keys only (derived-keys.ts); drop
 * exact duplicates; cut at minScore and topK. Equal scores (sources raised
 * to one lent score) are ordered by what the query matched on its own, then
 * by content hash and id: the same memories give the same order whatever
 * ids they were given.
 */
export function rankCandidates(
  fused: ReadonlyMap<string, FusedEntry>,
  memories: ReadonlyMap<string, Memory>,
  now: Date,
  config: RecallConfig,
  query: { timeWindows?: readonly TimeWindow[]; words?: ReadonlySet<string> } = {},
  derived: DerivedRanking = { via: new Map(), standingIn: new Set() },
): Ranked[] {
  const timeWindows = query.timeWindows ?? [];
  const words = query.words ?? new Set<string>();
  const timeBoost = timeWindows.length > 0 ? 1 + config.timeMatchBoost : 1;
  const speakerBoost = 1 + config.speakerMatchBoost;
  const ceiling = maxFused(config) * timeBoost * speakerBoost;
  const rescore = (memory: Memory, f: FusedEntry): Ranked => {
    const authority = config.authority[memory.authority];
    const recency = recencyFactor(memory.origin.observedAt, now, config);
    const confidence = confidenceFactor(memory.confidence, config);
    const time =
      timeBoost > 1 && observedInWindows(memory.origin.observedAt, timeWindows) ? timeBoost : 1;
    const speaker = namesSpeaker(words, memory.origin.speaker) ? speakerBoost : 1;
    const score = f.fused * authority * recency * confidence * time * speaker;
    const final = ceiling > 0 ? Math.min(1, score / ceiling) : 0;
    return {
      memory,
      score: final,
      breakdown: { ...f, authority, recency, confidence, time, speaker, final },
    };
  };
  const scored: Ranked[] = [];
  for (const [id, f] of fused) {
    const memory = memories.get(id);
    if (!memory) continue; // filtered out by the store (expired, superseded, deleted)
    scored.push(rescore(memory, f));
  }
  lendScoreToSources(
    scored,
    memories,
    config,
    (m) => rescore(m, { ranks: {}, raw: {}, fused: 0 }),
    derived.via,
  );
  const keys = new Set(
    keysOnly(
      scored.map((r) => r.memory),
      derived.standingIn,
      config,
    ),
  );
  scored.sort(
    (a, b) =>
      b.score - a.score ||
      b.breakdown.fused - a.breakdown.fused ||
      a.memory.contentHash.localeCompare(b.memory.contentHash) ||
      a.memory.id.localeCompare(b.memory.id),
  );

  const seenHashes = new Set<string>();
  const out: Ranked[] = [];
  for (const r of scored) {
    if (keys.has(r.memory.id)) continue;
    if (seenHashes.has(r.memory.contentHash)) continue;
    if (r.score < config.minScore) continue;
    seenHashes.add(r.memory.contentHash);
    out.push(r);
    if (out.length >= config.topK) break;
  }
  return out;
}

/** Whether the query's words include every word of the speaker's name. */
export function namesSpeaker(words: ReadonlySet<string>, speaker: string | undefined): boolean {
  if (!speaker || words.size === 0) return false;
  const parts = speaker.toLowerCase().match(/[\p{L}\p{M}\p{N}]+/gu) ?? [];
  return parts.length > 0 && parts.every((p) => words.has(p));
}

/** Words and short phrases of a query that may name an entity (1 to 3 words). */
export function entityCandidates(query: string, max = 40): string[] {
  const words = query
    .split(/[^\p{L}\p{N}'-]+/u)
    .map((w) => w.replace(/^'+|'+$/g, ''))
    .filter((w) => w.length > 1);
  const out = new Set<string>();
  for (let n = 1; n <= 3; n++) {
    for (let i = 0; i + n <= words.length; i++)
      out.add(
        words
          .slice(i, i + n)
          .join(' ')
          .toLowerCase(),
      );
  }
  return [...out].slice(0, max);
}
