// Root Vitest config: every package's tests run against their TypeScript
// sources (no build step). The store conformance suite
// (@keepgraph/store-conformance) runs from each store package's own
// test/conformance.<store>.test.ts (`pnpm test:conformance` runs those alone,
// by their path).
//
// Files run on KEEPGRAPH_TEST_WORKERS workers at once (default 2, one per
// core here; most of a file's time is spent waiting on the servers it
// spawns). Each worker has a Neo4j server of its own (test/services.ts), so
// files running at once never share a database, and no project has to wait
// for another.
//
// Files share their worker's module cache (isolate: false): each worker
// imports the workspace once, not once per file (the imports took about a
// sixth of a run's time when every file paid for its own). The setup file
// still runs before each file. A file that replaces a module (vi.mock) needs
// a cache of its own: it is named *.isolated.test.ts and runs in the
// `isolated` project (lint refuses vi.mock anywhere else).
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import LongestFirst from './test/sequencer.ts';

const WORKERS = Number(process.env.KEEPGRAPH_TEST_WORKERS ?? 2);

/** The packages' own tests, and the test suite's helpers (the one-pass needle search). */
const UNIT = [
  'packages/*/test/**/*.test.ts',
  'workers/test/**/*.test.ts',
  'graph-schema/**/*.test.ts',
  'test/corpus/**/*.test.ts',
];

/** Test files that replace a module, each run with a module cache of its own. */
const ISOLATED = '**/*.isolated.test.ts';

/**
 * chrono-node's English parser (core's query-time.ts). Node resolves
 * 'chrono-node/en' through the package's "./*" export; Vite's resolver also
 * tries the package's "./*\/*" key (two wildcards, which Node ignores),
 * matches it and finds nothing. So the tests are pointed at the file Node
 * would load.
 */
const CHRONO_EN = createRequire(resolve(import.meta.dirname, 'packages/core/package.json'))
  .resolve('chrono-node/en')
  .replace('/dist/cjs/', '/dist/esm/');

export default defineConfig({
  resolve: { alias: [{ find: /^chrono-node\/en$/, replacement: CHRONO_EN }] },
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    isolate: false,
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
          // Every file but the isolated ones, in one project: with isolate
          // false, Vitest runs each project's files to the last before the
          // next project starts, and restarts its workers between them, so
          // each project's longest file left a core idle (the conformance
          // project alone: about 70 s).
          name: 'suite',
          include: [...UNIT, 'test/{e2e,background,reliability}/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ISOLATED],
        },
      },
      {
        extends: true,
        test: {
          name: 'isolated',
          include: [ISOLATED],
          isolate: true,
        },
      },
    ],
  },
});
