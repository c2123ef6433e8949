// The layers of @keepgraph/core, checked by `pnpm lint` (madge there checks
// file cycles only; a layer can run back up without any file cycle).
//
//   top        engine.ts, idempotency.ts, index.ts, registry.ts, testing.ts
//   backup/    dump and restore, through services
//   use-cases/ and jobs/   both call services, never each other
//   services/  the write sequence, the cascade, the jobs a write triggers
//   domain     domain/ (records, ranking, kinds, audit), policy/, ports/
//
// A module may import its own layer and the layers below it.
const CORE = '^packages/core/src/';
const TOP = `${CORE}(engine|idempotency|index|registry|testing)\\.ts$`;
const UPPER = `${CORE}(services|use-cases|jobs|backup)/`;

module.exports = {
  forbidden: [
    {
      name: 'core-jobs-not-use-cases',
      comment: 'Jobs call services (packages/core/src/services), never a use-case.',
      severity: 'error',
      from: { path: `${CORE}jobs/` },
      to: { path: `${CORE}use-cases/` },
    },
    {
      name: 'core-use-cases-not-jobs',
      comment: 'Use-cases call services, never a job module.',
      severity: 'error',
      from: { path: `${CORE}use-cases/` },
      to: { path: `${CORE}jobs/` },
    },
    {
      name: 'core-services-below-use-cases-and-jobs',
      comment: 'Services are what use-cases and jobs share: they call neither, nor anything above.',
      severity: 'error',
      from: { path: `${CORE}services/` },
      to: { path: [`${CORE}(use-cases|jobs|backup)/`, TOP] },
    },
    {
      name: 'core-backup-through-services',
      comment: 'Backup and restore use services, not use-cases or jobs.',
      severity: 'error',
      from: { path: `${CORE}backup/` },
      to: { path: [`${CORE}(use-cases|jobs)/`, TOP] },
    },
    {
      name: 'core-layers-not-top',
      comment: 'Only the top (the engine, the barrel, fixtures) binds the layers together.',
      severity: 'error',
      from: { path: `${CORE}(services|use-cases|jobs)/` },
      to: { path: TOP },
    },
    {
      name: 'core-domain-at-the-bottom',
      comment: 'Records, policy, ports and ranking import nothing above them.',
      severity: 'error',
      from: { path: CORE, pathNot: [UPPER, TOP] },
      to: { path: [UPPER, TOP] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
  },
};
