// @keepgraph/core: the engine, its use-cases and what their callers see
// (records, errors, audit events, answers' schemas, the registry and its
// exposures). The parts other packages implement or run are subpaths:
//   @keepgraph/core/ports    what a store, an embedder, a clock, a job queue
//                            or an extractor implements, and the store kit
//   @keepgraph/core/policy   the policy file, its schema and the write gate
//   @keepgraph/core/jobs     background jobs: registry, processors, relay,
//                            triggers and scheduled passes
//   @keepgraph/core/backup   backup formats and restore
//   @keepgraph/core/testing  fixtures and a seeded random for tests and benchmarks
export * from './domain/errors.ts';
export * from './domain/record.ts';
export * from './domain/audit.ts';
export * from './domain/recall-config.ts';
export * from './domain/rank.ts';
export * from './domain/render-context.ts';
export * from './idempotency.ts';
export * from './services/deps.ts';
export * from './services/write.ts';
export * from './services/cascade.ts';
export * from './use-cases/remember.ts';
export * from './use-cases/remember-args.ts';
export * from './use-cases/correct.ts';
export * from './use-cases/correct-args.ts';
export * from './use-cases/recall.ts';
export * from './use-cases/recall-args.ts';
export * from './use-cases/inspect.ts';
export * from './use-cases/read-log.ts';
export * from './use-cases/forget.ts';
export * from './use-cases/session.ts';
export * from './use-cases/session-args.ts';
export * from './use-cases/session-forget.ts';
export * from './use-cases/session-forget-args.ts';
export * from './use-cases/export.ts';
export * from './use-cases/list.ts';
export * from './use-cases/import.ts';
export * from './use-cases/import-args.ts';
export * from './domain/import-input.ts';
export * from './use-cases/operate.ts';
export * from './use-cases/graph.ts';
export * from './use-cases/caller.ts';
export * from './use-cases/keys.ts';
export * from './use-cases/keys-args.ts';
export * from './services/api-keys.ts';
export * from './engine.ts';
export * from './domain/observe.ts';
export * from './use-cases/registry.ts';
export * from './use-cases/exposure.ts';
export * from './use-cases/owner-stats.ts';
export * from './use-cases/authorization-table.ts';
export * from './domain/liveness.ts';
