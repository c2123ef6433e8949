// Liveness: answers while the process serves requests, naming the store
// kind and the embedding model so an operator sees what is running.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { HealthOut } from '../schemas/responses.ts';
import type { RouteOptions } from './context.ts';

export const healthRoutes: FastifyPluginAsyncZod<Pick<RouteOptions, 'engine'>> = async (
  app,
  { engine },
) => {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['health'],
        summary: 'Liveness, with the store kind and embedding model in use',
        response: { 200: HealthOut },
      },
    },
    async () => ({
      ok: true as const,
      store: engine.services.serving.store,
      model: engine.services.serving.model,
    }),
  );
};
