// OpenAPI: @fastify/swagger collects every route's zod schemas (through
// fastify-type-provider-zod's transform) into one document, served at
// GET /openapi.json; @fastify/swagger-ui serves a browsable page at /docs.
// Registered before the routes, since swagger learns routes as they are added.
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import fp from 'fastify-plugin';
import {
  createJsonSchemaTransform,
  createJsonSchemaTransformObject,
} from 'fastify-type-provider-zod';
import { NAMED_RESULTS } from '../schemas/named-results.ts';

const withComponents = createJsonSchemaTransformObject({ schemaRegistry: NAMED_RESULTS });

/**
 * The named answers as components. The transform also writes each one's
 * input form (`MemoryInput`, …), which no route takes: those no route
 * refers to are left out, so a client generator sees only the answers.
 */
const answersOnly: typeof withComponents = (input) => {
  const doc = withComponents(input) as { components?: { schemas?: Record<string, unknown> } };
  const schemas = doc.components?.schemas ?? {};
  const text = JSON.stringify({ ...doc, components: { ...doc.components, schemas: {} } });
  for (const name of Object.keys(schemas))
    if (name.endsWith('Input') && !text.includes(`"#/components/schemas/${name}"`))
      delete schemas[name];
  return doc as ReturnType<typeof withComponents>;
};

/**
 * The docs page's Content-Security-Policy, as the UI's (routes/ui.ts): the
 * page loads its scripts, styles and icons from /docs/static and the
 * document from /docs/json, and "Try it out" calls this origin, so all of it
 * is 'self'; its inline SVG icons are data: URLs. It may not be framed
 * (a page that sends requests with a pasted key is a clickjacking target),
 * nor post forms or set a base elsewhere.
 */
export const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // swagger-ui adds a <style> element from script (as the UI's libraries set styles).
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

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
      // Named answers are components, referred to by every route that gives them.
      transform: createJsonSchemaTransform({ schemaRegistry: NAMED_RESULTS }),
      transformObject: answersOnly,
    });
    // In a context of its own, so the headers reach every /docs answer (the
    // page and the static files swagger-ui serves) and nothing else.
    await app.register(async (docs) => {
      docs.addHook('onSend', async (_request, reply) => {
        void reply.header('content-security-policy', DOCS_CSP);
        void reply.header('x-frame-options', 'DENY');
        void reply.header('x-content-type-options', 'nosniff');
        void reply.header('referrer-policy', 'no-referrer');
      });
      await docs.register(fastifySwaggerUi, { routePrefix: '/docs' });
    });
    app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'keepgraph-openapi' },
);
