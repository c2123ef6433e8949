// ownerStats: how much the engine holds for one owner, by kind and by
// authority, and how old it is; nothing of the memories' text. An agent can
// say "I remember 41 facts about you, most of them from you" and a user can
// see what a forget would concern. It is also the worked example of
// docs/adding-a-use-case.md: this module, its registry row (with its
// exposure) and its tests are all that adding it took; HTTP, OpenAPI, MCP,
// the CLI and both SDKs derive their binding from the row.
import { z } from 'zod';
import type { EngineDeps } from '../services/deps.ts';
import { arg, OWNER_ID, type ParsedArgs } from './define.ts';

export const OwnerStatsArgs = [arg('ownerId', OWNER_ID)] as const;

const count = z.number().int().nonnegative();

/** The answer, declared once: the HTTP answer's schema, the SDKs' model and the TypeScript type. */
export const OwnerStatsResult = z
  .object({
    ownerId: z.string(),
    memories: count.describe('Memories stored for the owner, superseded versions included'),
    byKind: z.record(z.string(), count).describe('Memories per kind (episode, fact, …)'),
    byAuthority: z.record(z.string(), count).describe('Memories per authority (user, tool, …)'),
    medianAgeMs: z
      .number()
      .nonnegative()
      .nullable()
      .describe('Median age of the live memories at the time of asking, in ms; null when none'),
  })
  .describe('How much is held for one owner, by kind and authority, and how old it is');
export type OwnerStats = z.output<typeof OwnerStatsResult>;

export async function ownerStats(
  deps: EngineDeps,
  input: ParsedArgs<typeof OwnerStatsArgs>,
): Promise<OwnerStats> {
  const now = deps.clock.now();
  const c = await deps.store.counts({ ownerId: input.ownerId, now: now.toISOString() });
  return {
    ownerId: input.ownerId,
    memories: c.memories,
    byKind: c.byKind,
    byAuthority: c.byAuthority,
    medianAgeMs: c.medianCreatedMs === null ? null : Math.max(0, now.getTime() - c.medianCreatedMs),
  };
}
