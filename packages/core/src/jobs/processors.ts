// The job processors: what each named job does, the same code whether BullMQ
// workers (server mode) or the in-process runner (embedded mode) call it.
// Every processor is idempotent in effect: a retried or duplicated job finds
// its work already done (reflected marks, deterministic derived ids, the
// cascade's not_found) and changes nothing more.
import type { Job, JobName } from '../ports/job-queue.ts';
import type { Extractor } from '../ports/extractor.ts';
import type { Engine } from '../engine.ts';
import type { MemoryKind } from '../record.ts';
import { embeddingText } from '../indexed-text.ts';
import { auditEvent, type Caller } from '../use-cases/deps.ts';
import { reflect } from './reflect.ts';
import { compact } from './compact.ts';
import { ALL_OWNERS } from './job-ids.ts';

/** What a processor reports (kept by BullMQ as the job's return value). */
export type JobResult = Record<string, unknown>;
export type Processor = (job: Job) => Promise<JobResult>;
export type Processors = Readonly<Record<JobName, Processor>>;

/** Pages of episodes one reflect job reads at most (maxEpisodes each). */
const MAX_PAGES = 50;

const SWEEPER: Caller = { role: 'operator', principal: 'system:sweeper' };
const REEMBEDDER: Caller = { role: 'operator', principal: 'system:reembed' };

export interface ProcessorOptions {
  /** Reads episodes into claims: the built-in statement extractor or an LLM. */
  extractor: Extractor;
}

function isLive(m: { expiresAt: string; supersededBy: string | null }, now: string): boolean {
  return m.expiresAt > now && m.supersededBy === null;
}

export function createProcessors(engine: Engine, opts: ProcessorOptions): Processors {
  const deps = engine.deps;

  /** Re-embed what the owner stored with another model, in pages; returns how many. */
  async function reembedOwner(ownerId: string, model: string): Promise<number> {
    let done = 0;
    for (;;) {
      const ids = await deps.store.staleEmbeddings(ownerId, model, 256);
      if (ids.length === 0) return done;
      const rows = await deps.store.getByIds(ownerId, ids);
      const vectors = await deps.embedder.embed(rows.map(embeddingText), 'document');
      await deps.store.replaceEmbeddings(
        ownerId,
        rows.map((m, i) => ({ id: m.id, embedding: vectors[i]!, model })),
      );
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
  async function reflectBacklog(ownerId: string) {
    const total = {
      episodes: 0,
      groups: 0,
      claims: 0,
      written: [] as string[],
      confirmed: [] as string[],
      superseded: [] as string[],
      conflicts: [] as string[],
      rejected: [] as unknown[],
    };
    for (let page = 0; page < MAX_PAGES; page++) {
      const run = await reflect(deps, opts.extractor, ownerId);
      total.episodes += run.episodes;
      total.groups += run.groups;
      total.claims += run.claims;
      total.written.push(...run.written);
      total.confirmed.push(...run.confirmed);
      total.superseded.push(...run.superseded);
      total.conflicts.push(...run.conflicts);
      total.rejected.push(...run.rejected);
      const read = run.episodes - run.rejected.reduce((a, r) => a + r.episodes.length, 0);
      // A short page was the last; a page that marked nothing would repeat.
      if (run.episodes < deps.policy.background.reflection.maxEpisodes || read === 0) break;
    }
    return total;
  }

  return {
    async reflect(job) {
      // The schedule's job names every owner ('*'): reflect those with a backlog.
      if (job.ownerId === ALL_OWNERS) {
        const now = deps.clock.now().toISOString();
        let owners = 0;
        for (const owner of await deps.store.listOwners()) {
          if ((await deps.store.countUnreflected(owner, now, 1)) === 0) continue;
          await reflectBacklog(owner);
          owners++;
        }
        return { owners };
      }
      const run = await reflectBacklog(job.ownerId);
      return {
        episodes: run.episodes,
        groups: run.groups,
        claims: run.claims,
        written: run.written.length,
        confirmed: run.confirmed.length,
        superseded: run.superseded.length,
        conflicts: run.conflicts.length,
        rejected: run.rejected.length,
      };
    },

    async compact(job) {
      if (job.ownerId === ALL_OWNERS) {
        let written = 0;
        for (const owner of await deps.store.listOwners())
          written += (await compact(deps, owner)).written.length;
        return { written };
      }
      const run = await compact(deps, job.ownerId);
      return { scanned: run.scanned, clusters: run.clusters, written: run.written.length };
    },

    async rederive(job) {
      const kind = job.payload.kind as MemoryKind | undefined;
      const ids = (job.payload.survivingSources as string[] | undefined) ?? [];
      const now = deps.clock.now().toISOString();
      const survivors = (await deps.store.getByIds(job.ownerId, ids)).filter((m) => isLive(m, now));
      if (kind === 'summary') {
        // Compact the owner again: the survivors regroup (and the summaries of
        // both the cluster and its older, superseded versions settle on one).
        const run = await compact(deps, job.ownerId);
        return { survivors: survivors.length, written: run.written.length };
      }
      // Rules, preferences and facts come from episodes: read the survivors again.
      const episodes = survivors.filter((m) => m.kind === 'episode');
      if (episodes.length === 0) return { survivors: survivors.length, written: 0 };
      const run = await reflect(deps, opts.extractor, job.ownerId, {
        episodes,
        markReflected: false,
      });
      return { survivors: survivors.length, written: run.written.length };
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
      let done = 0;
      for (const owner of owners) done += await reembedOwner(owner, model);
      return { reembedded: done, owners: owners.length, model };
    },
  };
}
