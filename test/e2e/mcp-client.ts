// An MCP client (the SDK's own Client) for the e2e tests, and `keepgraph mcp`
// as an MCP host starts it: a child process spoken to over stdio, on its own
// data directory or in front of a running server.
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { expect } from 'vitest';
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

/**
 * Through `client`'s tools: remember `text` as a fact, then recall with
 * `query`; both must succeed. Answers the recall's first text content (the
 * memories quoted as data).
 */
export async function rememberThenRecall(
  client: Client,
  text: string,
  query: string,
): Promise<string> {
  const stored = await client.callTool({
    name: 'remember',
    arguments: { kind: 'fact', text, origin: { sessionId: 'mcp-test' } },
  });
  expect(stored.isError ?? false, JSON.stringify(stored.content)).toBe(false);
  const recalled = await client.callTool({ name: 'recall', arguments: { query } });
  expect(recalled.isError ?? false, JSON.stringify(recalled.content)).toBe(false);
  return (recalled.content as { text: string }[])[0]!.text;
}
