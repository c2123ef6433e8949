// `keepgraph mcp`: KeepGraph as an MCP server over stdio, for MCP clients
// that spawn their servers (Claude Desktop, Cursor, IDE agents). On the
// local data directory (the embedded store, with its background jobs), or,
// with --url and --key, in front of a running `keepgraph start`, whose key
// then decides role and owners. stdout carries the protocol only; notes go
// to stderr.
import type { Command } from 'commander';
import { KeepGraphClient } from '@keepgraph/client';
import { TOOLS, createMcpServer, remoteEngine } from '@keepgraph/mcp';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Caller, Engine } from '@keepgraph/core';
import { globalOptions, runsUseCases, withRuntime } from '../context.ts';
import { CliExit, EXIT } from '../exit.ts';
import type { Io } from '../io.ts';

interface McpFlags {
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

export function registerMcp(program: Command, io: Io): void {
  runsUseCases(program.command('mcp'), [
    ...new Set([
      ...TOOLS.map((t) => t.useCase),
      'listMemories' as const,
      'sessionContext' as const,
    ]),
  ])
    .description('serve the MCP tools over stdio, on the local data directory or a running server')
    .option(
      '--owner <id>',
      'the owner tool calls act for when they name none (locally, the only one they may name)',
    )
    .option('--url <url>', 'a running keepgraph server to serve the tools from (with --key)')
    .option('--key <key>', 'the API key for --url (default: env KEEPGRAPH_KEY)')
    .action(async (f: McpFlags, cmd: Command) => {
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
          await serve(
            io,
            engine,
            scoped,
            f,
            `as ${scoped.role}${f.owner ? ` for ${f.owner}` : ''}`,
          );
        },
        { background: true },
      );
    });
}
