// Liveness: answers while the process serves requests, naming what runs
// (the version, the store kind and its schema version, the embedding model)
// so an operator sees it without a credential.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { HealthOut } from '../schemas/responses.ts';
import type { RouteOptions } from './context.ts';

export const healthRoutes: FastifyPluginAsyncZod<
  Pick<RouteOptions, 'engine'> & { version: string }
> = async (app, { engine, version }) => {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['health'],
        summary:
          'Liveness, with the version, the store kind and its schema version, and the embedding model in use',
        response: { 200: HealthOut },
      },
    },
    async () => ({ ok: true as const, version, ...engine.services.serving }),
  );
};
