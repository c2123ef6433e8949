// Retrieval as a config object plus named recipes (STYLE habit 8): HTTP, the
// CLI and the SDK all accept a recipe name and/or overrides of these fields.
import { z } from 'zod';
import type { Authority } from './record.ts';

export const RecallConfigSchema = z.strictObject({
  /** How many candidates each retriever contributes before fusion. */
  candidates: z.number().int().min(1).max(1000),
  /** Reciprocal-rank-fusion constant: larger flattens the rank curve. */
  rrfK: z.number().min(1).max(1000),
  /**
   * Share of the vector and full-text retrievers' part in fusion taken from
   * their scores (each list's min-max) rather than their ranks (rank.ts
   * fuse); 0 is reciprocal rank fusion alone.
   */
  scoreShare: z.number().min(0).max(1),
  weights: z.strictObject({
    vector: z.number().min(0),
    text: z.number().min(0),
    entity: z.number().min(0),
    derived: z.number().min(0),
  }),
  /** Multiplier per authority: who vouches for a claim changes how far it is trusted. */
  authority: z.strictObject({
    operator: z.number().min(0).max(2),
    user: z.number().min(0).max(2),
    tool: z.number().min(0).max(2),
    agent_inferred: z.number().min(0).max(2),
    third_party: z.number().min(0).max(2),
  }),
  /** Recency half-life in days (observed time); 0 turns the recency factor off. */
  recencyHalfLifeDays: z.number().min(0),
  /** Share of the score recency may take away from an old memory (0..1). */
  recencyWeight: z.number().min(0).max(1),
  /** Share of the score low confidence may take away (0..1). */
  confidenceWeight: z.number().min(0).max(1),
  /** Drop a result whose normalised score is below this (0..1). */
  minScore: z.number().min(0).max(1),
  topK: z.number().int().min(1).max(100),
  /**
   * Share of a derived memory's final score lent to its sources (the
   * evidence it is a key to); 0 turns it off. A source raised this way
   * names the derived memory in `via`.
   */
  sourceLend: z.number().min(0).max(1),
  /**
   * How many of a derived memory's sources receive its score (the ones the
   * query matches best), and the most sources a derived memory may have to
   * take a result slot of its own: a broader one (a summary of many) is only
   * a key to them, so one hit cannot fill the results with its sources.
   */
  maxSourcesPerDerived: z.number().int().min(1).max(100),
  /**
   * Share of a question turn's score lent to its reply, the next episode of
   * its session (session-replies.ts); 0 turns it off.
   */
  replyWeight: z.number().min(0).max(1),
  /**
   * The longest reply that is lent its question's score (0: any). A reply
   * that says this much is found by what it says, if it answers; lending
   * to it only puts it up front whenever a question about the same subject
   * matches (an assistant's long answer to the user's question).
   */
  replyMaxChars: z.number().int().min(0),
  /** Extra share of score for a memory observed at a time the query names (query-time.ts); 0 turns it off. */
  timeMatchBoost: z.number().min(0).max(4),
  /** Extra share of score for a memory whose speaker the query names ("What does Mel like?"); 0 turns it off. */
  speakerMatchBoost: z.number().min(0).max(4),
});
export type RecallConfig = z.infer<typeof RecallConfigSchema>;

const AUTHORITY_TRUST: Record<Authority, number> = {
  operator: 1,
  user: 1,
  tool: 0.95,
  agent_inferred: 0.9,
  third_party: 0.75,
};

const DEFAULT: RecallConfig = {
  candidates: 50,
  rrfK: 20,
  scoreShare: 0.5,
  weights: { vector: 1, text: 1, entity: 0.5, derived: 1 },
  authority: AUTHORITY_TRUST,
  recencyHalfLifeDays: 180,
  recencyWeight: 0.1,
  confidenceWeight: 0.3,
  minScore: 0,
  topK: 5,
  sourceLend: 0.9,
  maxSourcesPerDerived: 3,
  replyWeight: 0.95,
  replyMaxChars: 500,
  timeMatchBoost: 1,
  speakerMatchBoost: 0.3,
};

/** Named recipes: `default` balances; `precise` returns less; `broad` casts wider. */
export const RECALL_RECIPES = {
  default: DEFAULT,
  precise: { ...DEFAULT, topK: 3, minScore: 0.35, candidates: 30 },
  broad: {
    ...DEFAULT,
    topK: 20,
    candidates: 200,
    weights: { ...DEFAULT.weights, entity: 1, derived: 1 },
  },
} as const satisfies Record<string, RecallConfig>;
export type RecallRecipe = keyof typeof RECALL_RECIPES;
export const RECALL_RECIPE_NAMES = Object.keys(RECALL_RECIPES) as RecallRecipe[];
