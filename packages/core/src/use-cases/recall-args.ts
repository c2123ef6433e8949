// The arguments of recall and why (recall.ts): apart from their bodies,
// which load the ranking (chrono-node, stop words), so that the registry
// reads them without it (see registry.ts).
import { z } from 'zod';
import { RECALL_RECIPE_NAMES, type RecallRecipe } from '../domain/recall-config.ts';
import { MEMORY_KINDS } from '../domain/record.ts';
import { MemoryFilterSchema } from './list.ts';
import { OWNER_ID, arg, optionalArg, uncheckedArg } from './define.ts';

export const RecallOptionsSchema = z.strictObject({
  recipe: z.enum(RECALL_RECIPE_NAMES as [RecallRecipe, ...RecallRecipe[]]).default('default'),
  topK: z.number().int().min(1).max(100).optional(),
  minScore: z.number().min(0).max(1).optional(),
  kinds: z.array(z.enum(MEMORY_KINDS)).min(1).optional(),
  /** Evaluate validity at this instant instead of now (never in the future past expiry). */
  asOf: z.iso.datetime({ offset: true }).optional(),
  /**
   * When the question is asked (default: asOf, else now). Relative dates in
   * the query ("last week", "in June") and recency are read against it, as a
   * person reading a transcript reads "yesterday" against the day it was
   * said; unlike asOf it does not change which memories are live, so an
   * agent replaying a conversation can ask as of the conversation's time.
   */
  askedAt: z.iso.datetime({ offset: true }).optional(),
  sessionId: z.string().min(1).max(256).optional(),
  /**
   * listMemories' filters (tag, origin, time ranges, authority...): they
   * narrow the candidates the searches found, so a rare filter may answer
   * fewer than topK. Superseded versions are never recalled (invariant 6).
   */
  filter: MemoryFilterSchema.omit({ includeSuperseded: true }).optional(),
});
export type RecallOptions = z.input<typeof RecallOptionsSchema>;

const QuerySchema = z.string().trim().min(1, 'query must not be blank').max(4000);

export const RecallArgs = [
  arg('ownerId', OWNER_ID),
  arg('query', uncheckedArg(QuerySchema)),
  optionalArg('options', RecallOptionsSchema.prefault({})),
] as const;
