// Public surface of @keepgraph/core: records, errors, audit, ports, policy,
// ranking and the engine. Adapters import from here only.
export * from './errors.ts';
export * from './record.ts';
export * from './audit.ts';
export * from './recall-config.ts';
export * from './rank.ts';
export * from './indexed-text.ts';
export * from './query-terms.ts';
export * from './render-context.ts';
export * from './ports/memory-store.ts';
export * from './ports/store-checks.ts';
export * from './ports/cascade-audit.ts';
export * from './ports/embedder.ts';
export * from './ports/clock.ts';
export * from './ports/job-queue.ts';
export * from './ports/extractor.ts';
export * from './policy/index.ts';
export * from './use-cases/deps.ts';
export * from './use-cases/remember.ts';
export * from './use-cases/recall.ts';
export * from './use-cases/forget.ts';
export * from './use-cases/session.ts';
export * from './use-cases/operate.ts';
export * from './engine.ts';
export * from './sweeper.ts';
export * from './jobs/job-ids.ts';
export * from './jobs/queue-metrics.ts';
