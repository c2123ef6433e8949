// An MCP client (the SDK's own Client) for the e2e tests, and `keepgraph mcp`
// as an MCP host starts it: a child process spoken to over stdio, on its own
// data directory or in front of a running server.
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { keepgraphArgv, keepgraphEnv } from '../keepgraph-cli.ts';

const root = resolve(import.meta.dirname, '../..');

/** A client connected over `transport` (close it when done). */
export async function connectMcp(transport: Transport): Promise<Client> {
  const client = new Client({ name: 'keepgraph-test', version: '1' });
  await client.connect(transport);
  return client;
}

/** `keepgraph ARGS…` over stdio, `env` added to the test environment (keepgraphEnv). */
export function keepgraphStdio(args: string[], env: Record<string, string>): Transport {
  return new StdioClientTransport({
    command: process.execPath,
    args: keepgraphArgv(...args),
    cwd: root,
    env: keepgraphEnv(env) as Record<string, string>,
    stderr: 'pipe',
  }) as Transport;
}

/** A client of `keepgraph mcp --url` in front of the server at `base`, for `owner` with `key`. */
export function connectRemoteMcp(base: string, owner: string, key: string): Promise<Client> {
  return connectMcp(
    keepgraphStdio(['mcp', '--url', base, '--owner', owner], { KEEPGRAPH_KEY: key }),
  );
}
