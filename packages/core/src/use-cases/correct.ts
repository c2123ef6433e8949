// correct: a memory is immutable, so a correction is a new version written
// through the same gate, which supersedes the old one (or, from a lower
// authority, is kept beside it as a flagged conflict, as reflection does).
// What was derived from the old version goes with the cascade and is
// re-derived from the new one by a `rederive` job.
import { z } from 'zod';
import { KeepGraphError } from '../domain/errors.ts';
import { ownerCap } from '../policy/index.ts';
import { embeddingText } from '../domain/indexed-text.ts';
import { triggeredJobs } from '../services/triggers.ts';
import { passesDue } from '../services/scheduled-pass.ts';
import { rederiveJob } from '../domain/job-ids.ts';
import {
  AUTHORITY_RANK,
  MemoryInputSchema,
  MemorySchema,
  copyMemory,
  type Memory,
  type ParsedMemoryInput,
} from '../domain/record.ts';
import { DeletionReceiptSchema, type DeletionReceipt } from '../ports/memory-store.ts';
import { auditEvent, parseInput, type Caller, type EngineDeps } from '../services/deps.ts';
import type { ParsedArgs } from './define.ts';
import type { CorrectArgs, CorrectionSchema } from './correct-args.ts';
import { cascade, evictOverCap } from '../services/cascade.ts';
import {
  auditRefusal,
  isAuditedRefusal,
  prepareWrite,
  writeDecidingAgain,
} from '../services/write.ts';

export const CorrectionResultSchema = z.object({
  /** The new version. */
  memory: MemorySchema.describe('The new version'),
  /** The id of the version corrected. */
  corrected: z.string().describe('The id of the version corrected'),
  /** True when the new version supersedes the old one; false when it is kept as a conflict. */
  superseded: z
    .boolean()
    .describe('True when the new version supersedes the old; false when kept as a conflict'),
  /** The memories derived from the old version, deleted and queued for re-derivation. */
  rederiving: z
    .array(z.string())
    .describe(
      'Memories derived from the old version: deleted, and re-derived from the new one by a job',
    ),
  /** The cascade that took them (null when nothing was derived from the old version). */
  receipt: DeletionReceiptSchema.nullable().describe('The cascade that took them, if any'),
});
export type CorrectionResult = z.output<typeof CorrectionResultSchema>;

/** The old version's fields, with the correction's text, authority and origin. */
function correctedInput(
  old: Memory,
  c: z.output<typeof CorrectionSchema>,
  liveSources: readonly string[],
): ParsedMemoryInput {
  const { writtenBy: _by, observedAt: _at, ...oldOrigin } = old.origin;
  return parseInput(MemoryInputSchema, {
    kind: old.kind,
    text: c.text,
    origin: c.origin ?? oldOrigin,
    ...(c.authority !== undefined && { authority: c.authority }),
    ...(old.key !== null && { key: old.key }),
    tags: c.tags ?? old.tags,
    confidence: old.confidence,
    sensitivity: old.sensitivity,
    ...(c.ttlSeconds !== undefined && { ttlSeconds: c.ttlSeconds }),
    ...(c.validFrom !== undefined && { validFrom: c.validFrom }),
    // A corrected claim still rests on what the old one was derived from, so
    // forgetting those sources still reaches it (invariant 7).
    derivedFrom: liveSources,
    about: old.about,
    relations: old.relations,
  });
}

export async function correctMemory(
  deps: EngineDeps,
  { ownerId, id, correction }: ParsedArgs<typeof CorrectArgs>,
  caller: Caller,
): Promise<CorrectionResult> {
  const now = deps.clock.now();
  const old = await deps.store.getById(ownerId, id);
  if (!old || old.expiresAt <= now.toISOString())
    throw new KeepGraphError('not_found', `no memory ${id} for this owner`);
  if (old.supersededBy !== null)
    throw new KeepGraphError(
      'conflict',
      `memory ${id} was superseded by ${old.supersededBy}: correct the current version`,
      { reason: 'superseded', current: old.supersededBy },
    );
  if (correction.derivedFrom?.includes(old.id))
    throw new KeepGraphError(
      'invalid_input',
      'derivedFrom: a correction replaces the version it corrects, it is not derived from it',
      { issues: [{ path: 'derivedFrom', message: 'names the memory being corrected' }] },
    );
  // The old version's sources that are still held, and the correction's own
  // (which the write path checks exist).
  const inherited = (await deps.store.getByIds(ownerId, old.derivedFrom))
    .filter((s) => s.expiresAt > now.toISOString())
    .map((s) => s.id);
  const sources = [...new Set([...inherited, ...(correction.derivedFrom ?? [])])];
  const input = correctedInput(old, correction, sources);

  const decide = async (at: Date, newId?: string) => {
    const p = await prepareWrite(
      newId ? { ...deps, newId: () => newId } : deps,
      caller,
      ownerId,
      input,
      at,
    );
    const decidedAt = p.memory.createdAt;
    // A keyed memory's versions are superseded by key (prepareWrite); an
    // unkeyed one by this correction, under the same rule: never by a lower
    // authority, whose correction is kept beside it, flagged.
    if (old.key === null) {
      if (AUTHORITY_RANK[p.memory.authority] >= AUTHORITY_RANK[old.authority]) {
        p.supersede.push({ ownerId, id: old.id, by: p.memory.id, at: decidedAt });
        p.memory.supersedes = old.id;
      } else p.memory.conflict = true;
    }
    const supersedes = p.supersede.some((s) => s.id === old.id);
    p.audit.push(
      auditEvent(caller, 'corrected', decidedAt, ownerId, {
        memoryIds: [old.id, p.memory.id],
        contentHashes: [old.contentHash, p.memory.contentHash],
        reason: correction.reason,
        details: {
          corrected: old.id,
          by: p.memory.id,
          superseded: supersedes,
          conflict: !supersedes,
          authority: p.memory.authority,
          requestId: caller.requestId ?? null,
        },
      }),
    );
    return { p, supersedes };
  };

  let decided: Awaited<ReturnType<typeof decide>>;
  try {
    decided = await decide(now);
  } catch (e) {
    if (isAuditedRefusal(e)) await auditRefusal(deps, caller, ownerId, input.text, e);
    throw e;
  }
  const newId = decided.p.memory.id;
  const [embedding] = await deps.embedder.embed([embeddingText(decided.p.memory)], 'document');
  // What was derived from the old version: deleted below and rebuilt from the
  // new one. The jobs go with the correction's own write, so they are queued
  // whether or not the cascade after it completes.
  const derived = decided.supersedes
    ? [...new Set((await deps.store.derivedFrom(ownerId, [old.id])).map((e) => e.child))]
    : [];
  const derivedMemories = await deps.store.getByIds(ownerId, derived);
  await writeDecidingAgain(deps, async (attempt) => {
    if (attempt > 0) decided = await decide(deps.clock.now(), newId);
    const memories = [{ memory: decided.p.memory, embedding: embedding ?? null }];
    const at = decided.p.memory.createdAt;
    await deps.store.write({
      memories,
      supersede: decided.p.supersede,
      sessionMessages: [],
      audit: decided.p.audit,
      jobs: [
        ...(await triggeredJobs(deps, ownerId, memories)),
        ...(decided.supersedes
          ? derivedMemories.map((d) =>
              rederiveJob(
                ownerId,
                { id: d.id, kind: d.kind, tags: d.tags, survivingSources: d.derivedFrom },
                at,
              ),
            )
          : []),
      ],
      due: passesDue(ownerId, memories),
      keys: decided.p.keys,
    });
  });
  let receipt: DeletionReceipt | null = null;
  if (decided.supersedes && derivedMemories.length > 0) {
    receipt = await cascade(
      deps,
      caller,
      ownerId,
      derivedMemories.map((d) => d.id),
      'correct',
      { corrected: old.id, by: newId },
    );
  }
  await evictOverCap(deps, caller, ownerId, ownerCap(deps.policy));
  return {
    memory: copyMemory(decided.p.memory),
    corrected: old.id,
    superseded: decided.supersedes,
    rederiving: derivedMemories.map((d) => d.id),
    receipt,
  };
}
