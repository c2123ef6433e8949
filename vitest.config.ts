// Root Vitest config: every package's tests run against their TypeScript
// sources (no build step). The conformance suite is its own project so that
// `pnpm test:conformance` can run it alone.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Starts (or finds) the services tests need: Neo4j and Redis.
    globalSetup: ['test/global-setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['packages/*/test/**/*.test.ts', 'workers/test/**/*.test.ts', 'graph-schema/**/*.test.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'conformance',
          include: ['test/conformance/**/*.test.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          // After the unit and conformance projects: a `keepgraph start` over
          // the shared Neo4j runs the in-process outbox relay, which reads
          // every owner's pending jobs, and the conformance suite's must stay
          // where they are.
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'background',
          include: ['test/background/**/*.test.ts'],
          // After every other project: its outbox relays read every owner's
          // pending jobs, and the conformance suite's and the e2e servers'
          // must stay where they are.
          sequence: { groupOrder: 2 },
        },
      },
      {
        extends: true,
        test: {
          name: 'reliability',
          include: ['test/reliability/**/*.test.ts'],
          // Last: it kills servers mid-burst, and its relays read every
          // owner's pending jobs, as the background project's do.
          sequence: { groupOrder: 3 },
        },
      },
    ],
  },
});
