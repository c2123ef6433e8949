// `keepgraph mcp --owner ID`: KeepGraph as an MCP server over stdio, on the
// local data directory (the embedded store, with its background jobs), for
// MCP clients that spawn their servers (Claude Desktop, Cursor, IDE agents).
// stdout carries the protocol only; notes go to stderr.
import type { Command } from 'commander';
import { TOOLS, createMcpServer } from '@keepgraph/mcp';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { globalOptions, runsUseCases, withRuntime } from '../context.ts';
import type { Io } from '../io.ts';

export function registerMcp(program: Command, io: Io): void {
  runsUseCases(program.command('mcp'), [
    ...new Set([
      ...TOOLS.map((t) => t.useCase),
      'listMemories' as const,
      'sessionContext' as const,
    ]),
  ])
    .description('serve the MCP tools over stdio on the local data directory (for MCP clients)')
    .option(
      '--owner <id>',
      'the owner tool calls act for when they name none (and the only one they may name)',
    )
    .action(async (f: { owner?: string }, cmd: Command) => {
      await withRuntime(
        globalOptions(cmd),
        async ({ engine, caller }) => {
          const scoped = f.owner === undefined ? caller : { ...caller, owners: [f.owner] };
          const server = createMcpServer({
            engine,
            caller: scoped,
            ...(f.owner !== undefined && { defaultOwner: f.owner }),
          });
          const transport = new StdioServerTransport();
          const closed = new Promise<void>((done) => {
            transport.onclose = () => done();
            process.stdin.once('end', () => done());
          });
          await server.connect(transport);
          io.err(
            `keepgraph MCP server on stdio, ${TOOLS.length} tools, as ${scoped.role}${f.owner ? ` for ${f.owner}` : ''}`,
          );
          await closed;
          await server.close();
        },
        { background: true },
      );
    });
}
