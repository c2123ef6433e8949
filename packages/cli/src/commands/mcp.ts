// `keepgraph mcp`: KeepGraph as an MCP server over stdio, for MCP clients
// that spawn their servers (Claude Desktop, Cursor, IDE agents). On the
// local data directory (the embedded store, with its background jobs), or,
// with --url and --key, in front of a running `keepgraph start`, whose key
// then decides role and owners. stdout carries the protocol only; notes go
// to stderr.
import type { Command } from 'commander';
import { TOOLS } from '@keepgraph/mcp/tools';
import { runsUseCases } from '../context.ts';
import type { Io } from '../io.ts';
import type { McpFlags } from './mcp-run.ts';

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
      // The server (the MCP SDK, the HTTP client, the runtime) loads when it runs.
      const { runMcp } = await import('./mcp-run.ts');
      await runMcp(io, f, cmd);
    });
}
