// What the server's tests set up again and again: an embedded runtime over a
// data directory of its own (removed when the runtime closes), and BullMQ
// queues in the Redis the test setup started, under a prefix of this run's
// own (emptied when they close), with what buildApp takes to show them.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { createHashingEmbedder } from '@keepgraph/embedder';
import {
  openEmbeddedRuntime,
  type EmbeddedRuntime,
  type EmbeddedRuntimeOptions,
} from '@keepgraph/runtime';
import { BullMqJobQueue } from '@keepgraph/workers';
import type { AppOptions } from '../src/app.ts';

/**
 * A runtime in a fresh directory named from `prefix`: SQLite, a small
 * hashing embedder and no sweep timer, unless `opts` say otherwise.
 * Closing it also removes the directory.
 */
export async function scratchRuntime(
  prefix: string,
  opts: Partial<EmbeddedRuntimeOptions> = {},
): Promise<EmbeddedRuntime> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const remove = () => rm(dir, { recursive: true, force: true });
  let runtime: EmbeddedRuntime;
  try {
    runtime = await openEmbeddedRuntime({
      dataDir: dir,
      embedder: createHashingEmbedder(16),
      sweepIntervalMs: null,
      ...opts,
    });
  } catch (e) {
    await remove();
    throw e;
  }
  return {
    ...runtime,
    async close() {
      await runtime.close();
      await remove();
    },
  };
}

export interface ScratchQueues {
  jobs: BullMqJobQueue;
  /** The Redis they are in and their prefix, for a Worker of the test's own. */
  connection: { url: string };
  prefix: string;
  /** buildApp's `queues`: depths and durations, and Bull Board over them. */
  forApp: NonNullable<AppOptions['queues']>;
  /** Obliterate every queue, then close them. */
  close(): Promise<void>;
}

/** The five job queues in the test setup's Redis, under `${name}-<random>`. */
export async function scratchQueues(name: string, attempts?: number): Promise<ScratchQueues> {
  const connection = { url: inject('redisUrl') };
  const prefix = `${name}-${randomBytes(4).toString('hex')}`;
  const jobs = new BullMqJobQueue({ connection, prefix, attempts });
  await jobs.ready();
  const queues = [...jobs.queues.values()];
  return {
    jobs,
    connection,
    prefix,
    forApp: { metrics: jobs, bullQueues: queues },
    async close() {
      await Promise.all(queues.map((q) => q.obliterate({ force: true })));
      await jobs.close();
    },
  };
}
