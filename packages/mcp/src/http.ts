// The streamable HTTP transport, stateless: each POST to /mcp gets a server
// for its caller (the request's credential decides role and owners) and a
// transport that answers it as JSON. Nothing is kept between requests, so
// any API process over the store can answer any request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpServer, type McpServerOptions } from './server.ts';

export async function handleMcpHttp(
  opts: McpServerOptions,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
): Promise<void> {
  const server = createMcpServer(opts);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
