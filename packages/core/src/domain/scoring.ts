// The shapes of ranking: what a candidate's score is made of, before and
// after rescoring. Apart from rank.ts so that the modules rank.ts calls
// (derived-keys.ts, session-replies.ts) can speak of them without importing it.
import { z } from 'zod';
import type { Memory } from './record.ts';

/** Retrievers whose ranked lists are fused (each has a weight in the config). */
export type FusedRetriever = 'vector' | 'text' | 'entity' | 'derived';
/**
 * Where a candidate's score came from: a fused retriever, the question turn
 * it replies to, or a derived memory it is evidence of (derived-keys.ts).
 */
export type RetrieverName = FusedRetriever | 'reply' | 'via';

/** A score per retriever, each present when that retriever found the memory. */
const retrieverScores = z.object({
  vector: z.number().optional(),
  text: z.number().optional(),
  entity: z.number().optional(),
  derived: z.number().optional(),
  reply: z.number().optional(),
  via: z.number().optional(),
} satisfies Record<RetrieverName, z.ZodOptional<z.ZodNumber>>);

/** Why a memory scored what it did: every factor, so callers can audit ranking. */
export const ScoreBreakdownSchema = z.object({
  ranks: retrieverScores,
  /**
   * Raw retriever scores: cosine similarity for vector, BM25 for text, the
   * question turn's fused score for reply, the final score of the derived memory that lent
   * its score for via.
   */
  raw: retrieverScores,
  fused: z.number(),
  authority: z.number(),
  recency: z.number(),
  confidence: z.number(),
  /** 1 + the config's timeMatchBoost when the memory was observed at a time the query names, else 1. */
  time: z.number(),
  /** 1 + the config's speakerMatchBoost when the query names the memory's speaker, else 1. */
  speaker: z.number(),
  /** Final score normalised to 0..1 against the best a memory could get. */
  final: z.number(),
});
export type ScoreBreakdown = z.output<typeof ScoreBreakdownSchema>;

/** A candidate after fusion, before rescoring. */
export type FusedEntry = Pick<ScoreBreakdown, 'ranks' | 'raw' | 'fused'>;

export interface Ranked {
  memory: Memory;
  score: number;
  breakdown: ScoreBreakdown;
}
