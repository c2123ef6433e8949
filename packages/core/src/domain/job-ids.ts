// The jobs the engine triggers, built in one place so that every producer
// (the write path, the cascade inside a store's transaction, the triggers,
// the schedules) names the same work with the same idempotency key.
import type { Job } from '../ports/job-queue.ts';
import type { RederiveEntry } from '../ports/memory-store.ts';

/** The owner id of jobs that concern every owner (expiry, the schedules). */
export const ALL_OWNERS = '*';

/** Why a reflection was asked for (recorded in the job, shown by Bull Board). */
export type ReflectReason = 'count' | 'negative' | 'novelty' | 'schedule' | 'manual';

/** Rebuild a deleted derived memory from its surviving sources. One per deletion instant. */
export function rederiveJob(ownerId: string, entry: RederiveEntry, at: string): Job {
  return {
    name: 'rederive',
    id: `rederive:${ownerId}:${entry.id}:${at}`,
    ownerId,
    payload: {
      deletedDerivedId: entry.id,
      kind: entry.kind,
      tags: [...entry.tags],
      survivingSources: [...entry.survivingSources],
    },
  };
}

/**
 * Reflect an owner's unreflected episodes. `anchor` is what triggered it (the
 * newest episode's id, or the schedule's tick): the same trigger twice is
 * one job, and a run finds whatever is unreflected when it starts, so extra
 * runs are harmless.
 */
export function reflectJob(ownerId: string, reason: ReflectReason, anchor: string): Job {
  return {
    name: 'reflect',
    id: `reflect:${ownerId}:${reason}:${anchor}`,
    ownerId,
    payload: { reason },
  };
}

/** Look for near-duplicate clusters among an owner's recent memories. */
export function compactJob(ownerId: string, anchor: string): Job {
  return { name: 'compact', id: `compact:${ownerId}:${anchor}`, ownerId, payload: {} };
}

/** Purge what is due (all owners). `tick` is the schedule's instant. */
export function expireJob(tick: string): Job {
  return { name: 'expire', id: `expire:${tick}`, ownerId: ALL_OWNERS, payload: {} };
}

/** The schedules' passes, once per tick: each records a job per owner written since its last pass. */
export function scheduledJobs(tick: string): Job[] {
  return [reflectJob(ALL_OWNERS, 'schedule', tick), compactJob(ALL_OWNERS, tick)];
}

/** Re-embed an owner's memories written with another model. */
export function reembedJob(ownerId: string, model: string): Job {
  return { name: 'reembed', id: `reembed:${ownerId}:${model}`, ownerId, payload: { model } };
}
