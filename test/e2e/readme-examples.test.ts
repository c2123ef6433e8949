// The README's agent examples, run as they are written: the MCP client
// configurations (stdio: the exact command and arguments, paths filled in;
// HTTP: the URL and header against `keepgraph start`) through the SDK's
// Client, and the TypeScript example as a file of its own. (The Python
// example runs in clients/python/tests/test_readme.py.)
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { startKeepGraph, userKeyFor, type KeepGraphProcess } from './keepgraph-process.ts';
import { rememberThenRecall } from './mcp-client.ts';
import { readmeBlocks } from './readme-blocks.ts';

const root = resolve(import.meta.dirname, '../..');

interface McpConfig {
  mcpServers: {
    keepgraph: {
      command?: string;
      args?: string[];
      url?: string;
      headers?: Record<string, string>;
    };
  };
}

describe('the README agent examples', () => {
  let dir: string;
  let kg: KeepGraphProcess;
  let key = '';
  const configs: McpConfig[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'keepgraph-readme-examples-'));
    kg = await startKeepGraph(join(dir, 'data'), { KEEPGRAPH_RATE_LIMIT: '0' });
    key = await userKeyFor(kg, 'alex', 'readme');
    for (const b of await readmeBlocks('json'))
      if (b.includes('mcpServers')) configs.push(JSON.parse(b) as McpConfig);
    // npx (run against the installed package by test/e2e/installed.test.ts),
    // pnpm from a checkout, and streamable HTTP.
    expect(configs).toHaveLength(3);
  }, 180_000);

  afterAll(async () => {
    await kg?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  async function remembersAndRecalls(transport: Transport) {
    const client = new Client({ name: 'readme', version: '1' });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('recall');
      expect(
        await rememberThenRecall(client, 'Alex flies from Lisbon', 'Where does Alex fly from?'),
      ).toContain('Alex flies from Lisbon');
    } finally {
      await client.close();
    }
  }

  it("the checkout's stdio configuration starts the MCP server as written", async () => {
    const { command, args } = configs.find((c) => c.mcpServers.keepgraph.command === 'pnpm')!
      .mcpServers.keepgraph;
    const data = join(dir, 'stdio-data');
    const filled = args!.map((a) =>
      a.replace('/path/to/keepgraph/.data', data).replace('/path/to/keepgraph', root),
    );
    await remembersAndRecalls(
      new StdioClientTransport({
        command: command!,
        args: filled,
        stderr: 'pipe',
        env: process.env as Record<string, string>,
      }) as Transport,
    );
  }, 120_000);

  it('the HTTP configuration reaches /mcp with the key', async () => {
    const { url, headers } = configs.find((c) => c.mcpServers.keepgraph.url)!.mcpServers.keepgraph;
    const target = new URL(url!.replace('http://127.0.0.1:7411', kg.base));
    const auth = Object.fromEntries(
      Object.entries(headers!).map(([k, v]) => [k, v.replace('kgk_...', key)]),
    );
    await remembersAndRecalls(
      new StreamableHTTPClientTransport(target, { requestInit: { headers: auth } }) as Transport,
    );
  }, 60_000);

  it('the TypeScript example runs as written', async () => {
    const [example] = await readmeBlocks('ts');
    const file = join(root, 'test/e2e/.tmp-readme-example.ts');
    await writeFile(file, example!);
    try {
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', file], {
        cwd: root,
        env: { ...process.env, KEEPGRAPH_URL: kg.base, KEEPGRAPH_KEY: key },
      });
      expect(stdout.trim()).toBe('Alex prefers aisle seats on long flights user s1');
    } finally {
      await rm(file, { force: true });
    }
  }, 60_000);
});
