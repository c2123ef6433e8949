// @keepgraph/core/registry: the use-case registry and what an interface
// binds it with, without the engine's machinery: the registry's rows and
// their exposures (httpBinding), the arguments' schemas, the records'
// vocabulary (kinds, authorities, roles...), the errors, the owner-id check
// and the renderings of answers as quoted data. It loads zod and these
// schemas only, not the policy gate (secretlint, libphonenumber-js,
// yaml...), the ranking (chrono-node, stop words) or the ports: the CLI
// builds its command tree from it at every start, `--help` and usage errors
// included, and @keepgraph/mcp/tools its tool table. The root (@keepgraph/core) exports
// all of this too, with the engine and the use-cases' bodies.
export * from './domain/errors.ts';
export * from './domain/record.ts';
export * from './domain/recall-config.ts';
export * from './domain/render-context.ts';
export * from './use-cases/registry.ts';
export * from './use-cases/exposure.ts';
export * from './use-cases/remember-args.ts';
export * from './use-cases/correct-args.ts';
export * from './use-cases/recall-args.ts';
export * from './use-cases/session-args.ts';
export * from './use-cases/session-forget-args.ts';
export * from './use-cases/import-args.ts';
export * from './use-cases/keys-args.ts';
export { MemoryFilterSchema, type MemoryFilter } from './use-cases/list.ts';
export { checkOwner } from './services/deps.ts';
