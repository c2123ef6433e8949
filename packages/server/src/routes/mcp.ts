// POST /mcp: the MCP server over streamable HTTP (stateless, JSON answers),
// behind the same bearer authentication as /v1: the request's credential is
// the tools' caller, and a key for one owner makes that owner the default.
// GET (a server-initiated stream) and DELETE (ending a session) have nothing
// to do without sessions: 405, as the transport's specification allows.
import type { FastifyInstance } from 'fastify';
import { KeepGraphError } from '@keepgraph/core';
import { handleMcpHttp } from '@keepgraph/mcp';
import type { RouteOptions } from './context.ts';

export async function mcpRoutes(app: FastifyInstance, { engine, callerOf }: RouteOptions) {
  app.post('/mcp', { schema: { hide: true } }, async (request, reply) => {
    const caller = callerOf(request);
    // A JSON-RPC batch is many calls in one request: bounded by the policy,
    // and each call beyond the first counted by the rate limit, so a batch
    // buys no more work than as many single requests would (invariant 13).
    if (Array.isArray(request.body)) {
      const max = engine.services.limits.mcpBatch;
      if (request.body.length > max)
        throw new KeepGraphError(
          'invalid_input',
          `a JSON-RPC batch holds at most ${max} calls (limits.mcpBatch); got ${request.body.length}`,
          { max, got: request.body.length },
        );
      // (Absent where the app runs without authentication: no rate limit.)
      await request.countCalls?.(reply, request.body.length - 1);
    }
    const defaultOwner =
      caller.owners !== 'all' && caller.owners.length === 1 ? caller.owners[0] : undefined;
    reply.hijack();
    await handleMcpHttp(
      { engine, caller, ...(defaultOwner !== undefined && { defaultOwner }) },
      request.raw,
      reply.raw,
      request.body,
    );
  });
  for (const method of ['GET', 'DELETE'] as const)
    app.route({
      method,
      url: '/mcp',
      schema: { hide: true },
      handler: async (_request, reply) =>
        reply
          .status(405)
          .header('allow', 'POST')
          .send({
            error: { code: 'invalid_input', message: 'this MCP endpoint is stateless: POST only' },
          }),
    });
}
