// Root Vitest config: every package's tests run against their TypeScript
// sources (no build step). The store conformance suite
// (@keepgraph/store-conformance) runs from each store package's own
// test/conformance.<store>.test.ts; those files are their own project, left
// out of `unit`, so that `pnpm test:conformance` can run them alone.
//
// Files run on KEEPGRAPH_TEST_WORKERS workers at once (default 2, one per
// core here; most of a file's time is spent waiting on the servers it
// spawns). Each worker has a Neo4j server of its own (test/services.ts), so
// files running at once never share a database, and no project has to wait
// for another.
import { configDefaults, defineConfig } from 'vitest/config';
import LongestFirst from './test/sequencer.ts';

const WORKERS = Number(process.env.KEEPGRAPH_TEST_WORKERS ?? 2);

/** Each store package's run of the store conformance suite. */
const CONFORMANCE = 'packages/store-*/test/conformance.*.test.ts';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: WORKERS,
    minWorkers: 1,
    // Longest files first, by the durations of a measured run (a fresh clone has no cache).
    sequence: { sequencer: LongestFirst },
    // Starts (or finds) the services tests need: Neo4j (one per worker) and Redis.
    globalSetup: ['test/global-setup.ts'],
    // Each file starts on an empty Neo4j (its worker's: test/fresh-neo4j.ts says why).
    setupFiles: ['test/fresh-neo4j.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: [
            'packages/*/test/**/*.test.ts',
            'workers/test/**/*.test.ts',
            'graph-schema/**/*.test.ts',
            // The test suite's own helpers (the one-pass needle search).
            'test/corpus/**/*.test.ts',
          ],
          exclude: [...configDefaults.exclude, CONFORMANCE],
        },
      },
      {
        extends: true,
        test: {
          name: 'conformance',
          include: [CONFORMANCE],
        },
      },
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'] } },
      { extends: true, test: { name: 'background', include: ['test/background/**/*.test.ts'] } },
      { extends: true, test: { name: 'reliability', include: ['test/reliability/**/*.test.ts'] } },
    ],
  },
});
