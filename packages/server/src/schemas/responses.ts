// Response schemas of the HTTP API that only the server declares, one module
// per family in responses/: union wrappers, shapes core returns without a
// named type, the server's own answers (health, queues) and the error map.
// Every engine answer's schema is declared once, in core, beside its type
// (`MemorySchema` and `type Memory = z.output<typeof MemorySchema>`, …):
// routes import those from @keepgraph/core, and fastify-type-provider-zod
// serialises and @fastify/swagger documents them as they are.
export * from './responses/graph.ts';
export * from './responses/deletion.ts';
export * from './responses/pages.ts';
export * from './responses/operate.ts';
export * from './responses/errors.ts';
