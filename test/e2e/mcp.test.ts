// An MCP client (the SDK's own Client) against KeepGraph over both
// transports, on the README's defaults: stdio (`keepgraph mcp --owner`, the
// embedded store) and streamable HTTP (`/mcp` on `keepgraph start`, with a
// key for one owner, on both stores). It lists the tools, remembers a
// preference with its origin, recalls it with origin and authority, asks
// why, forgets it and verifies it is gone; a refused secret, another owner
// and malformed arguments are tool errors with our codes, writing nothing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { TOOLS } from '@keepgraph/mcp';
import { scratchKeepGraph, userKeyFor, type KeepGraphProcess } from './keepgraph-process.ts';
import { connectMcp, connectRemoteMcp, keepgraphStdio } from './mcp-client.ts';
import { storeEnv } from './stores.ts';
import { STORE_KINDS } from '@keepgraph/runtime';

// Results are checked field by field below; a loose type keeps the test readable.
type Result = {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: any; // eslint-disable-line @typescript-eslint/no-explicit-any
};

async function flow(client: Client, owner: string) {
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as Result;

  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(TOOLS.map((t) => t.name).sort());
  const recallTool = tools.find((t) => t.name === 'recall')!;
  expect(recallTool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
  expect(tools.find((t) => t.name === 'forget')!.annotations).toMatchObject({
    destructiveHint: true,
  });
  expect(recallTool.inputSchema.properties).toHaveProperty('query');

  const stored = await call('remember', {
    kind: 'preference',
    text: 'Alex prefers aisle seats on long flights',
    origin: { sessionId: 'mcp-1', turn: '2' },
  });
  expect(stored.isError ?? false).toBe(false);
  const id = stored.structuredContent.memory.id as string;
  expect(stored.structuredContent.memory).toMatchObject({
    ownerId: owner,
    origin: { sessionId: 'mcp-1', turn: '2' },
  });

  const recalled = await call('recall', { query: 'Which seat should I book for Alex?' });
  const hit = recalled.structuredContent.results[0];
  expect(hit).toMatchObject({ memory: { id }, origin: { sessionId: 'mcp-1' } });
  expect(typeof hit.authority).toBe('string');
  // The text is quoted data with origin and authority, never bare text.
  expect(recalled.content[0]!.text).toMatch(/^<memories note="Reference data/);
  expect(recalled.content[0]!.text).toContain(`authority="${hit.authority}"`);
  expect(recalled.content[0]!.text).toContain('session mcp-1 turn 2');

  const why = await call('why', { query: 'aisle seats' });
  expect(why.structuredContent.lineage[id].nodes[0].key).toBe(id);

  // The graph reads and the credential: memory text quoted as data here too.
  const around = await call('neighbours', { id });
  expect(around.structuredContent.nodes.map((n: { key: string }) => n.key)).toEqual([id]);
  expect(around.content[0]!.text).toMatch(/^<memories note="Reference data/);
  const entities = await call('entity_graph', { limit: 10 });
  expect(entities.structuredContent.attributes).toEqual({ ownerId: owner, truncated: false });
  const me = await call('whoami', {});
  expect(me.structuredContent).toMatchObject({
    principal: expect.any(String),
    role: expect.any(String),
  });

  // Refusals: a secret, another owner, malformed arguments. Nothing written.
  const secret = await call('remember', {
    kind: 'fact',
    text: `the deploy token is ghp_${randomUUID().replaceAll('-', '')}Wxyz`,
    origin: { sessionId: 'mcp-1' },
  });
  expect([secret.isError, secret.structuredContent.error.code]).toEqual([true, 'refused_secret']);
  const other = await call('recall', { ownerId: `someone-else-${randomUUID()}`, query: 'seats' });
  expect([other.isError, other.structuredContent.error.code]).toEqual([true, 'owner_out_of_scope']);
  const malformed = await call('remember', { text: 42, origin: 'nowhere' });
  expect([malformed.isError, malformed.structuredContent.error.code]).toEqual([
    true,
    'invalid_input',
  ]);
  const listed = await call('list_memories', {});
  expect(listed.structuredContent.memories.map((m: { id: string }) => m.id)).toEqual([id]);

  const receipt = (await call('forget', { ids: [id] })).structuredContent;
  expect(receipt.deletedMemoryIds).toEqual([id]);
  const check = await call('verify_forgotten', {
    ids: receipt.deletedMemoryIds,
    contentHashes: receipt.deletedContentHashes,
  });
  expect(check.structuredContent).toMatchObject({ forgotten: true, traces: [] });
  expect((await call('recall', { query: 'aisle seats' })).structuredContent.results).toEqual([]);

  // The profile resource and the context prompt.
  const templates = await client.listResourceTemplates();
  expect(templates.resourceTemplates[0]!.uriTemplate).toBe('keepgraph://owners/{ownerId}/profile');
  await call('remember', {
    kind: 'constraint',
    text: 'Alex cannot travel on Sundays',
    origin: { sessionId: 'mcp-2' },
  });
  const profile = await client.readResource({ uri: `keepgraph://owners/${owner}/profile` });
  expect((profile.contents[0] as { text: string }).text).toContain('Alex cannot travel on Sundays');
  await call('session_append', {
    sessionId: 'mcp-2',
    messages: [{ role: 'user', text: 'Book me a trip for the weekend' }],
  });
  const prompt = await client.getPrompt({
    name: 'answer_with_context',
    arguments: { sessionId: 'mcp-2', question: 'Which day can Alex travel?' },
  });
  const text = (prompt.messages[0]!.content as { text: string }).text;
  expect(text).toContain('Book me a trip for the weekend');
  expect(text).toContain('Alex cannot travel on Sundays');
}

describe('MCP over stdio (keepgraph mcp, embedded store)', () => {
  let dir: string;
  let client: Client;
  const owner = `mcp-${randomUUID()}`;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'keepgraph-mcp-stdio-'));
    client = await connectMcp(
      keepgraphStdio(['--data', dir, 'mcp', '--owner', owner], { KEEPGRAPH_DEBUG: '' }),
    );
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('lists, remembers, recalls with origin, explains, refuses with codes, forgets and verifies', async () => {
    await flow(client, owner);
  }, 120_000);
});

for (const store of STORE_KINDS) {
  describe(`MCP over streamable HTTP (/mcp on keepgraph start, ${store})`, () => {
    const server = scratchKeepGraph(`keepgraph-mcp-http-${store}-`, {
      KEEPGRAPH_RATE_LIMIT: '0',
      ...storeEnv(store),
    });
    let kg: KeepGraphProcess;
    let client: Client;
    const owner = `mcp-${randomUUID()}`;
    const remoteOwner = `mcp-remote-${randomUUID()}`;

    beforeAll(async () => {
      kg = await server.start();
      const key = await userKeyFor(kg, owner, 'mcp agent');
      client = await connectMcp(
        new StreamableHTTPClientTransport(new URL(`${kg.base}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${key}` } },
        }) as Transport,
      );
    }, 180_000);

    afterAll(async () => {
      await client?.close();
      await server.end('stop');
    });

    it('lists, remembers, recalls with origin, explains, refuses with codes, forgets and verifies', async () => {
      await flow(client, owner);
    }, 120_000);

    it('serves the same tools over stdio in front of this server (keepgraph mcp --url --key)', async () => {
      const key = await userKeyFor(kg, remoteOwner, 'mcp remote');
      const remote = await connectRemoteMcp(kg.base, remoteOwner, key);
      try {
        await flow(remote, remoteOwner);
      } finally {
        await remote.close();
      }
    }, 120_000);

    it('refuses a request without a key', async () => {
      const r = await fetch(`${kg.base}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(r.status).toBe(401);
    });
  });
}
