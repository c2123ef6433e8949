// @keepgraph/core/ports: what the engine asks of the parts it does not own:
// the memory store (its port, the store kit that checks shapes and hands a
// store its rules, migrations), embedders, clocks, job queues, extractors.
// query-terms is here because a store's full-text search must tokenise a
// query exactly as core does.
export * from '../domain/query-terms.ts';
export * from './memory-store.ts';
export * from './store-checks.ts';
export * from './entity-plan.ts';
export * from './cascade-audit.ts';
export * from './store-kit.ts';
export * from './store-operations.ts';
export * from './store-migrations.ts';
export * from './store-rules.ts';
export * from './read-journal.ts';
export * from './embedder.ts';
export * from './clock.ts';
export * from './job-queue.ts';
export * from './extractor.ts';
export * from './iso-time.ts';
