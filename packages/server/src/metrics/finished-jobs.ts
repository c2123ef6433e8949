// Job durations in server mode, where `keepgraph worker` processes run the
// jobs and this process only produces them: read from Redis at scrape time.
// BullMQ keeps a finished job in its queue's `completed` or `failed` sorted
// set, scored by its finish time, with `processedOn` and `finishedOn` in the
// job's hash (our jobs are kept a day, failures a week: BullMqJobQueue). So
// each scrape reads every set from its newest member down to where the
// last scrape stopped, and those jobs' two timestamps: a job is counted
// once, none is missed between scrapes (up to FINISHED_JOBS_PER_READ a
// set per scrape), and no connection is opened beyond the queues' own
// (QueueEvents would hold a blocking connection per queue and still have to
// fetch each job for its timestamps).
import type { Queue } from 'bullmq';

/** A job done for good, as the histogram takes it. */
export interface FinishedJob {
  queue: string;
  outcome: 'completed' | 'failed';
  durationMs: number;
}

/** At most this many finished jobs a set per read (a scrape every few seconds finds far fewer). */
export const FINISHED_JOBS_PER_READ = 1000;

/** Set members read per Redis call. */
const PAGE = 100;

const SETS = ['completed', 'failed'] as const;

interface Mark {
  /** The finish time read up to (ms, Redis's clock as BullMQ wrote it). */
  score: number;
  /** The ids read at exactly that score (a set's score ties are read again). */
  ids: Set<string>;
}

export class FinishedJobsReader {
  private readonly marks = new Map<string, Mark>();

  /**
   * @param since Jobs that finished before this time (ms since the epoch) are
   *   not reported: a fresh process's histogram starts empty, as its counters do.
   */
  constructor(
    private readonly queues: readonly Queue[],
    private readonly since: number = Date.now(),
  ) {}

  /** The jobs finished since the last read (or since `since`), in every queue. */
  async read(): Promise<FinishedJob[]> {
    const perSet = await Promise.all(
      this.queues.flatMap((q) => SETS.map((state) => this.readSet(q, state))),
    );
    return perSet.flat();
  }

  private async readSet(q: Queue, state: (typeof SETS)[number]): Promise<FinishedJob[]> {
    const key = q.toKey(state);
    const mark = this.marks.get(key) ?? { score: this.since, ids: new Set<string>() };
    const client = await q.client;
    // Newest first, a page at a time, down to the mark.
    const fresh = new Map<string, number>();
    for (let start = 0; fresh.size < FINISHED_JOBS_PER_READ; start += PAGE) {
      const flat = await client.zrevrange(key, start, start + PAGE - 1, { WITHSCORES: true });
      let past = false;
      for (let i = 0; i + 1 < flat.length; i += 2) {
        const id = flat[i]!;
        const score = Number(flat[i + 1]);
        if (score < mark.score) {
          past = true;
          break;
        }
        if (score === mark.score && mark.ids.has(id)) continue;
        fresh.set(id, score);
      }
      if (past || flat.length < PAGE * 2) break;
    }
    if (fresh.size === 0) return [];
    // What this read missed (over the cap) is older than the new mark:
    // lost to the histogram, never counted twice.
    const top = Math.max(...fresh.values());
    const next: Mark = { score: top, ids: top === mark.score ? new Set(mark.ids) : new Set() };
    for (const [id, score] of fresh) if (score === top) next.ids.add(id);
    const stamps = await Promise.all(
      [...fresh.keys()].map((id) => client.hmget(q.toKey(id), 'processedOn', 'finishedOn')),
    );
    this.marks.set(key, next);
    const out: FinishedJob[] = [];
    for (const [processedOn, finishedOn] of stamps.map((v) => v.map((x) => Number(x ?? NaN)))) {
      // A job removed meanwhile, or one that failed before it ever ran.
      if (!Number.isFinite(processedOn) || !Number.isFinite(finishedOn)) continue;
      out.push({
        queue: q.name,
        outcome: state,
        durationMs: Math.max(0, finishedOn! - processedOn!),
      });
    }
    return out;
  }
}
