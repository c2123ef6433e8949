// `keepgraph mcp` when it runs (mcp.ts registers it): the MCP server over
// stdio, on the local runtime or in front of a running server.
import type { Command } from 'commander';
import { KeepGraphClient } from '@keepgraph/client';
import { TOOLS, createMcpServer, remoteEngine } from '@keepgraph/mcp';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Caller, Engine } from '@keepgraph/core';
import { globalOptions, withRuntime } from '../context.ts';
import { CliExit, EXIT } from '../exit.ts';
import type { Io } from '../io.ts';

export interface McpFlags {
  owner?: string;
  url?: string;
  key?: string;
}

/** Serve until the client goes (stdin ends or the transport closes). */
async function serve(io: Io, engine: Engine, caller: Caller, f: McpFlags, where: string) {
  const server = createMcpServer({
    engine,
    caller,
    ...(f.owner !== undefined && { defaultOwner: f.owner }),
  });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((done) => {
    transport.onclose = () => done();
    process.stdin.once('end', () => done());
  });
  await server.connect(transport);
  io.err(`keepgraph MCP server on stdio, ${TOOLS.length} tools, ${where}`);
  await closed;
  await server.close();
}

/** Serve the tools over stdio until the client goes. */
export async function runMcp(io: Io, f: McpFlags, cmd: Command): Promise<void> {
  if (f.url !== undefined) {
    const key = f.key ?? process.env.KEEPGRAPH_KEY;
    if (!key) {
      io.err('error: --url needs an API key: --key KEY or KEEPGRAPH_KEY');
      throw new CliExit(EXIT.error);
    }
    const client = new KeepGraphClient({ baseUrl: f.url, apiKey: key });
    // The server decides who the key is; this caller is never sent.
    const remote: Caller = { role: 'agent', owners: 'all', principal: 'mcp:remote' };
    await serve(io, remoteEngine(client), remote, f, `for ${f.url}`);
    return;
  }
  await withRuntime(
    globalOptions(cmd),
    async ({ engine, caller }) => {
      const scoped = f.owner === undefined ? caller : { ...caller, owners: [f.owner] };
      await serve(io, engine, scoped, f, `as ${scoped.role}${f.owner ? ` for ${f.owner}` : ''}`);
    },
    { background: true },
  );
}
