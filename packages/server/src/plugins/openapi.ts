// OpenAPI: @fastify/swagger collects every route's zod schemas (through
// fastify-type-provider-zod's transform) into one document, served at
// GET /openapi.json; @fastify/swagger-ui serves a browsable page at /docs.
// Registered before the routes, since swagger learns routes as they are added.
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import fp from 'fastify-plugin';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

/** Options of {@link openApiPlugin}. */
export interface OpenApiOptions {
  version: string;
  /** Documented body limit, in bytes. */
  bodyLimit: number;
}

export const openApiPlugin = fp<OpenApiOptions>(
  async (app, opts) => {
    await app.register(fastifySwagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'KeepGraph',
          version: opts.version,
          description: [
            'Provenance-first graph memory for LLM agents. Every memory has an owner, an origin, an authority and an expiry.',
            '',
            `Request bodies are limited to ${opts.bodyLimit} bytes (413 \`payload_too_large\`); batch writes allow more.`,
            'Every route but `/healthz`, `/docs` and `/openapi.json` needs `Authorization: Bearer <API key or JWT>`; `GET /metrics` also takes the metrics token (`KEEPGRAPH_METRICS_TOKEN`); the caller\u2019s role and owners come from that credential, never from a request body (401 `unauthenticated`, 403 `forbidden_role` / `owner_out_of_scope`, 429 `rate_limited` with Retry-After).',
            'Every error answers `{ error: { code, message, details? } }`; clients should switch on `code`.',
          ].join('\n'),
        },
        components: {
          securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
        },
        security: [{ bearer: [] }],
        tags: [
          { name: 'memories', description: 'Write and read memories' },
          { name: 'graph', description: "A memory's neighbours and an owner's entity graph" },
          { name: 'recall', description: 'Retrieval with provenance' },
          { name: 'forget', description: 'Deletion with receipts and proof' },
          { name: 'kv', description: 'Values by key' },
          { name: 'sessions', description: 'Short-term session buffer' },
          {
            name: 'operate',
            description: 'Oversight: audit, KPIs (operators; analysts for their owners), expiry',
          },
          { name: 'keys', description: 'Operator-only: API keys' },
          { name: 'identity', description: 'The caller: who it is, the owners it may see' },
          { name: 'health', description: 'Liveness' },
        ],
      },
      transform: jsonSchemaTransform,
    });
    await app.register(fastifySwaggerUi, { routePrefix: '/docs' });
    app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'keepgraph-openapi' },
);
