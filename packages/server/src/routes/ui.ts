// The provenance explorer at /ui: the app's static files (built by
// packages/ui at install time). They hold no data and need no credential;
// every figure the app shows comes from /v1 with the key the user enters.
// A Content-Security-Policy keeps the page to this origin: scripts and
// styles from here, the layout worker from a blob: URL, no framing.
import type { FastifyPluginAsync } from 'fastify';
import fastifyStatic from '@fastify/static';
import { UI_DIST_DIR, uiBuilt } from '@keepgraph/ui';

export const UI_PREFIX = '/ui/';

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "worker-src 'self' blob:",
  // uPlot and sigma set element styles from script.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

export const uiRoutes: FastifyPluginAsync = async (app) => {
  app.get('/ui', { schema: { hide: true } }, async (_request, reply) => reply.redirect(UI_PREFIX));
  if (!uiBuilt()) {
    // Installed without the build step: say how to build rather than a bare 404.
    app.get('/ui/*', { schema: { hide: true } }, async (_request, reply) =>
      reply.status(404).send({
        error: {
          code: 'not_found',
          message: 'the web UI has not been built: run `pnpm --filter @keepgraph/ui build`',
        },
      }),
    );
    return;
  }
  await app.register(fastifyStatic, {
    root: UI_DIST_DIR,
    prefix: UI_PREFIX,
    index: ['index.html'],
    wildcard: true,
    setHeaders: (res) => {
      res.header('content-security-policy', CSP);
      // frame-ancestors for the browsers that predate it, as /docs sends.
      res.header('x-frame-options', 'DENY');
      res.header('x-content-type-options', 'nosniff');
      res.header('referrer-policy', 'no-referrer');
      res.header('cache-control', 'no-cache');
    },
  });
};
