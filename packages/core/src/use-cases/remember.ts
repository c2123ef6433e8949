// remember / put-by-key / rememberMany: the write use-cases. Each prepares
// its memories with the shared write sequence (services/write.ts), embeds
// them, and makes one atomic store write with its audit events and jobs.
import { yieldToEventLoop } from '../domain/event-loop.ts';
import { KeepGraphError, isKeepGraphError } from '../domain/errors.ts';
import { ownerCap } from '../policy/index.ts';
import {
  MemoryInputSchema,
  MemorySchema,
  copyMemory,
  type ParsedMemoryInput,
} from '../domain/record.ts';
import { z } from 'zod';
import { parseInput, type Caller, type EngineDeps } from '../services/deps.ts';
import {
  auditRefusal,
  isAuditedRefusal,
  prepareWrite,
  writeDecidingAgain,
} from '../services/write.ts';
import type { ParsedArgs } from './define.ts';
import type { PutByKeyArgs, RememberArgs, RememberManyArgs } from './remember-args.ts';
import { evictOverCap } from '../services/cascade.ts';
import { embeddingText } from '../domain/indexed-text.ts';
import { triggeredJobs } from '../services/triggers.ts';
import { passesDue } from '../services/scheduled-pass.ts';

export const RememberResultSchema = z.object({
  memory: MemorySchema,
  /** Id of the memory this one superseded (same key, authority not lower). */
  superseded: z.string().nullable().describe('Id of the memory this write superseded (same key)'),
});
export type RememberResult = z.output<typeof RememberResultSchema>;

/** One refused or failed item of a batch, by position. */
export const RememberFailureSchema = z.object({
  index: z.number().int(),
  code: z.string(),
  message: z.string(),
});
export type RememberFailure = z.output<typeof RememberFailureSchema>;

export const RememberManyResultSchema = z.object({
  stored: z.array(MemorySchema),
  failed: z.array(RememberFailureSchema),
});
export type RememberManyResult = z.output<typeof RememberManyResultSchema>;

/** Store one memory, or throw a KeepGraphError with a code (refusals are audited). */
export async function remember(
  deps: EngineDeps,
  { ownerId, input }: ParsedArgs<typeof RememberArgs>,
  caller: Caller,
): Promise<RememberResult> {
  const now = deps.clock.now();
  let prepared: Awaited<ReturnType<typeof prepareWrite>>;
  try {
    prepared = await prepareWrite(deps, caller, ownerId, input, now);
  } catch (e) {
    if (isAuditedRefusal(e)) await auditRefusal(deps, caller, ownerId, input.text, e);
    throw e;
  }
  const [embedding] = await deps.embedder.embed([embeddingText(prepared.memory)], 'document');
  const id = prepared.memory.id;
  await writeDecidingAgain(deps, async (attempt) => {
    // Another writer of the key won: decide supersession again from what it left (same id, same vector).
    // Decided again now, not at the first attempt's instant: the version it
    // supersedes was written after that instant, and a chain's versions must
    // be in time order (eviction and expiry take the oldest first).
    if (attempt > 0)
      prepared = await prepareWrite(
        { ...deps, newId: () => id },
        caller,
        ownerId,
        input,
        deps.clock.now(),
      );
    const memories = [{ memory: prepared.memory, embedding: embedding ?? null }];
    await deps.store.write({
      memories,
      supersede: prepared.supersede,
      sessionMessages: [],
      audit: prepared.audit,
      jobs: await triggeredJobs(deps, ownerId, memories),
      due: passesDue(ownerId, memories),
      keys: prepared.keys,
    });
  });
  await evictOverCap(deps, caller, ownerId, ownerCap(deps.policy));
  return { memory: copyMemory(prepared.memory), superseded: prepared.supersede[0]?.id ?? null };
}

/** The most memories one rememberMany call takes (every interface: HTTP, import, SDKs). */
export const MAX_BATCH = 1000;

/** Put a value under (owner, key): a `kv` memory unless another kind is given. */
export function putByKey(
  deps: EngineDeps,
  { ownerId, key, input }: ParsedArgs<typeof PutByKeyArgs>,
  caller: Caller,
): Promise<RememberResult> {
  const memory = parseInput(MemoryInputSchema, { kind: 'kv', ...input, key });
  return remember(deps, { ownerId, input: memory }, caller);
}

/**
 * Store many memories of one owner with batched embeddings: the import and
 * benchmark path. Each item passes the same gate; refusals are reported by
 * index and audited, and do not stop the rest. Items are written in order, so
 * an item may name an earlier one in derivedFrom only after it is stored:
 * split such batches.
 */
export async function rememberMany(
  deps: EngineDeps,
  { ownerId, items: raws }: ParsedArgs<typeof RememberManyArgs>,
  caller: Caller,
): Promise<RememberManyResult> {
  if (!Array.isArray(raws) || raws.length === 0 || raws.length > MAX_BATCH)
    throw new KeepGraphError(
      'invalid_input',
      `a batch holds 1 to ${MAX_BATCH} memories (got ${Array.isArray(raws) ? raws.length : 'none'})`,
      { max: MAX_BATCH },
    );
  const now = deps.clock.now();
  const ok: {
    index: number;
    input: ParsedMemoryInput;
    p: Awaited<ReturnType<typeof prepareWrite>>;
  }[] = [];
  const failed: RememberFailure[] = [];
  const keysInBatch = new Set<string>();
  for (const [index, raw] of raws.entries()) {
    // Each item's gate is a few ms of CPU: let other requests in between.
    await yieldToEventLoop();
    try {
      const input = parseInput(MemoryInputSchema, raw);
      // Two writes of one key in one batch would both see the same "current"
      // version; keep the semantics of sequential writes by refusing that.
      if (input.key) {
        if (keysInBatch.has(input.key)) {
          throw new KeepGraphError('conflict', `key ${input.key} appears twice in one batch`);
        }
        keysInBatch.add(input.key);
      }
      try {
        ok.push({ index, input, p: await prepareWrite(deps, caller, ownerId, input, now) });
      } catch (e) {
        if (isAuditedRefusal(e)) await auditRefusal(deps, caller, ownerId, input.text, e);
        throw e;
      }
    } catch (e) {
      if (!isKeepGraphError(e)) throw e;
      failed.push({ index, code: e.code, message: e.message });
    }
  }
  if (ok.length > 0) {
    const vectors = await deps.embedder.embed(
      ok.map((o) => embeddingText(o.p.memory)),
      'document',
    );
    await writeDecidingAgain(deps, async (attempt) => {
      if (attempt > 0)
        for (const o of ok) {
          const id = o.p.memory.id;
          const again = deps.clock.now(); // as in remember: a chain's versions in time order
          o.p = await prepareWrite({ ...deps, newId: () => id }, caller, ownerId, o.input, again);
        }
      const memories = ok.map((o, i) => ({ memory: o.p.memory, embedding: vectors[i] ?? null }));
      await deps.store.write({
        memories,
        supersede: ok.flatMap((o) => o.p.supersede),
        sessionMessages: [],
        audit: ok.flatMap((o) => o.p.audit),
        jobs: await triggeredJobs(deps, ownerId, memories),
        due: passesDue(ownerId, memories),
        keys: ok.flatMap((o) => o.p.keys),
      });
    });
    await evictOverCap(deps, caller, ownerId, ownerCap(deps.policy));
  }
  return { stored: ok.map((o) => copyMemory(o.p.memory)), failed };
}
