// @keepgraph/core/jobs: background work: the job registry and processors,
// the outbox relay, triggers and scheduled passes, and the text measures
// consolidation uses (what a memory embeds as, word overlap, derived kinds).
export * from '../domain/derived-kinds.ts';
export * from '../domain/indexed-text.ts';
export * from '../domain/job-ids.ts';
export * from './job-registry.ts';
export * from './queue-metrics.ts';
export * from './statement-extractor.ts';
export * from './group-episodes.ts';
export * from './derived-writes.ts';
export * from './reflect.ts';
export * from './compact.ts';
export * from '../domain/word-overlap.ts';
export * from './context-keys.ts';
export * from '../services/turn-context.ts';
export * from './processors.ts';
export * from '../services/scheduled-pass.ts';
export * from '../services/triggers.ts';
export * from './relay.ts';
export * from './in-process-runner.ts';
export * from './background.ts';
