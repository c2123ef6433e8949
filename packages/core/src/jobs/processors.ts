// The job processors: what each named job does, the same code whether BullMQ
// workers (server mode) or the in-process runner (embedded mode) call it.
// Every processor is idempotent in effect: a retried or duplicated job finds
// its work already done (reflected marks, deterministic derived ids, the
// cascade's not_found) and changes nothing more.
import { jobPayload } from './job-registry.ts';
import type { Job, JobName } from '../ports/job-queue.ts';
import type { Extractor } from '../ports/extractor.ts';
import { embeddingText } from '../domain/indexed-text.ts';
import { auditEvent, type Caller, type EngineDeps } from '../services/deps.ts';
import { reflect } from './reflect.ts';
import { vectorsInContext } from '../services/turn-context.ts';
import { compact } from './compact.ts';
import { COMPACTION_TAG } from '../domain/derived-kinds.ts';
import { ALL_OWNERS } from '../domain/job-ids.ts';
import { fanOutScheduledPass } from '../services/scheduled-pass.ts';
import { isLiveAt } from '../domain/liveness.ts';
import type { MemoryStore } from '../ports/memory-store.ts';
import type { Memory } from '../domain/record.ts';

/** How many newer versions a source is followed through to its current one. */
const MAX_VERSION_HOPS = 32;

/**
 * The live version of each of `ids`: the memory itself, or the newest one
 * that superseded it (a correction, a newer value of its key). Ids whose
 * chain ends in nothing live are left out.
 */
export async function currentVersions(
  store: Pick<MemoryStore, 'getByIds'>,
  ownerId: string,
  ids: readonly string[],
  now: string,
): Promise<Memory[]> {
  const out = new Map<string, Memory>();
  let frontier = await store.getByIds(ownerId, ids);
  for (let hop = 0; frontier.length > 0 && hop < MAX_VERSION_HOPS; hop++) {
    const next: string[] = [];
    for (const m of frontier) {
      if (isLiveAt(m, now)) out.set(m.id, m);
      else if (m.supersededBy !== null) next.push(m.supersededBy);
    }
    frontier = await store.getByIds(
      ownerId,
      [...new Set(next)].filter((id) => !out.has(id)),
    );
  }
  return [...out.values()];
}

/** What a processor reports (kept by BullMQ as the job's return value). */
export type JobResult = Record<string, unknown>;
export type Processor = (job: Job) => Promise<JobResult>;
export type Processors = Readonly<Record<JobName, Processor>>;

/** Pages of episodes one reflect job reads at most (maxEpisodes each). */
const MAX_PAGES = 50;

const SWEEPER: Caller = { role: 'operator', owners: 'all', principal: 'system:sweeper' };
const REEMBEDDER: Caller = { role: 'operator', owners: 'all', principal: 'system:reembed' };

export interface ProcessorOptions {
  /** Reads episodes into claims: the built-in statement extractor or an LLM. */
  extractor: Extractor;
}

/**
 * One owner's consolidation at a time in this process: reflection,
 * compaction and re-derivation of one owner read what the others write
 * (a claim's current version, a cluster's summaries).
 */
function ownerLocks() {
  const tails = new Map<string, Promise<unknown>>();
  return async <T>(ownerId: string, work: () => Promise<T>): Promise<T> => {
    const before = tails.get(ownerId) ?? Promise.resolve();
    const run = before.then(work, work);
    const tail = run.catch(() => {});
    tails.set(ownerId, tail);
    try {
      return await run;
    } finally {
      if (tails.get(ownerId) === tail) tails.delete(ownerId);
    }
  };
}

/**
 * Run `work` for every owner; one owner's failure does not stop the others,
 * and fails the job at the end (its retry redoes only what is not yet done).
 */
async function forEachOwner(
  owners: readonly string[],
  work: (ownerId: string) => Promise<number>,
): Promise<{ owners: number; done: number }> {
  const errors: unknown[] = [];
  let done = 0;
  for (const owner of owners) {
    try {
      done += await work(owner);
    } catch (e) {
      errors.push(e);
    }
  }
  if (errors.length > 0)
    throw new AggregateError(errors, `${errors.length} of ${owners.length} owners failed`);
  return { owners: owners.length, done };
}

/**
 * What the processors run on: the engine's dependencies, and the expiry
 * sweep as the `expireDue` use-case. The sweep goes through the engine (an
 * Engine is one) so it is observed as that use-case (the expiry-lag
 * metrics); handed in, so jobs never import a use-case or the engine.
 */
export interface JobHost {
  readonly deps: EngineDeps;
  expireDue(caller: Caller, options: { limit: number }): Promise<{ purged: number }>;
}

export function createProcessors(engine: JobHost, opts: ProcessorOptions): Processors {
  const deps = engine.deps;
  const exclusive = ownerLocks();

  /** Re-embed what the owner stored with another model, in pages; returns how many. */
  async function reembedOwner(ownerId: string, model: string): Promise<number> {
    let done = 0;
    for (;;) {
      const ids = await deps.store.staleEmbeddings(ownerId, model, 256);
      if (ids.length === 0) return done;
      const rows = await deps.store.getByIds(ownerId, ids);
      // Turns as reflection reads them, after the turn before (turn-context.ts).
      const inContext = deps.policy.background.reflection.turnContext
        ? await vectorsInContext(deps, ownerId, rows)
        : [];
      const read = new Set(inContext.map((u) => u.id));
      const alone = rows.filter((m) => !read.has(m.id));
      const vectors = await deps.embedder.embed(alone.map(embeddingText), 'document');
      await deps.store.replaceEmbeddings(ownerId, [
        ...inContext.map((u) => ({ ...u, model })),
        ...alone.map((m, i) => ({ id: m.id, embedding: vectors[i]!, model })),
      ]);
      await deps.store.appendAudit([
        auditEvent(REEMBEDDER, 'reembed', deps.clock.now().toISOString(), ownerId, {
          memoryIds: rows.map((m) => m.id),
          details: { model },
        }),
      ]);
      done += rows.length;
      // Ids the store could not update would come back forever.
      if (rows.length < ids.length) return done;
    }
  }

  /**
   * Reflect an owner's unreflected episodes a page (policy maxEpisodes) at a
   * time until none is left, at most MAX_PAGES pages per job (the schedule
   * picks up the rest). Each page commits on its own: a retried job resumes.
   */
  function reflectBacklog(ownerId: string) {
    return exclusive(ownerId, async () => {
      const total = { episodes: 0, claims: 0, written: 0, conflicts: 0, rejected: 0 };
      for (let page = 0; page < MAX_PAGES; page++) {
        const run = await reflect(deps, opts.extractor, ownerId);
        total.episodes += run.episodes;
        total.claims += run.claims;
        total.written += run.written.length;
        total.conflicts += run.conflicts.length;
        total.rejected += run.rejected.length;
        // Every episode read is marked: a short page was the last one.
        if (run.episodes < deps.policy.background.reflection.maxEpisodes) break;
      }
      return total;
    });
  }

  const compactOwner = (ownerId: string) => exclusive(ownerId, () => compact(deps, ownerId));

  return {
    async reflect(job) {
      // The schedule's job names every owner ('*'): it records one job per
      // owner written since its last pass (scheduled-pass.ts).
      if (job.ownerId === ALL_OWNERS)
        return fanOutScheduledPass(deps.store, 'reflect', deps.clock.now().toISOString());
      return reflectBacklog(job.ownerId);
    },

    async compact(job) {
      if (job.ownerId === ALL_OWNERS)
        return fanOutScheduledPass(deps.store, 'compact', deps.clock.now().toISOString());
      const run = await compactOwner(job.ownerId);
      return { scanned: run.scanned, clusters: run.clusters, written: run.written.length };
    },

    async rederive(job) {
      // A compaction summary: compact the owner again; the survivors regroup,
      // and the summaries of the cluster and of its older, superseded
      // versions settle on one. (Jobs recorded before tags were, name no tags.)
      const payload = jobPayload('rederive', job);
      const tags = payload.tags;
      if (payload.kind === 'summary' && (!tags || tags.includes(COMPACTION_TAG))) {
        const run = await compactOwner(job.ownerId);
        return { written: run.written.length };
      }
      // Claims and context summaries come from episodes: read the survivors
      // again, each as its current version (a corrected source is read as
      // its correction).
      // At most the policy's fan-out: a memory written under it named no
      // more, and one written before it (or under a wider limit) must not
      // make one job read and regroup thousands of episodes at once.
      const ids = payload.survivingSources.slice(0, deps.policy.limits.derivedFrom);
      return exclusive(job.ownerId, async () => {
        const now = deps.clock.now().toISOString();
        const episodes = (await currentVersions(deps.store, job.ownerId, ids, now)).filter(
          (m) => m.kind === 'episode',
        );
        if (episodes.length === 0) return { survivors: 0, written: 0 };
        const run = await reflect(deps, opts.extractor, job.ownerId, {
          episodes,
          markReflected: false,
        });
        return { survivors: episodes.length, written: run.written.length };
      });
    },

    async expire() {
      let purged = 0;
      for (;;) {
        const r = await engine.expireDue(SWEEPER, { limit: 1000 });
        purged += r.purged;
        if (r.purged < 1000) return { purged };
      }
    },

    async reembed(job) {
      const model = deps.embedder.modelId;
      const owners = job.ownerId === ALL_OWNERS ? await deps.store.listOwners() : [job.ownerId];
      const r = await forEachOwner(owners, (owner) =>
        exclusive(owner, () => reembedOwner(owner, model)),
      );
      return { reembedded: r.done, owners: r.owners, model };
    },
  };
}
