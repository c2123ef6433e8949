// The MCP surface is derived from the registry: every use-case an agent may
// call is a tool (a new agent-facing use-case without one fails here), each
// tool names a registry use-case the agent role may run, and every tool's
// arguments have a JSON Schema a client can read.
import { describe, expect, it } from 'vitest';
import { USE_CASES, type UseCaseName } from '@keepgraph/core';
import { createMcpServer, TOOLS } from '../src/index.ts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';

const agentUseCases = (Object.keys(USE_CASES) as UseCaseName[]).filter((n) =>
  (USE_CASES[n].roles as readonly string[]).includes('agent'),
);

describe('the MCP tools', () => {
  it('cover every use-case an agent may call, and only those', () => {
    expect(agentUseCases.filter((n) => !TOOLS.some((t) => t.useCase === n))).toEqual([]);
    for (const t of TOOLS) expect(agentUseCases, t.name).toContain(t.useCase);
  });

  it('have unique snake_case names, hints and a JSON Schema for their arguments', async () => {
    expect(new Set(TOOLS.map((t) => t.name)).size).toBe(TOOLS.length);
    for (const t of TOOLS) expect(t.name).toMatch(/^[a-z]+(_[a-z]+)*$/);
    // Listed through a real client: the schemas are what the SDK serves.
    const server = createMcpServer({
      engine: {} as never,
      caller: { role: 'agent', owners: ['o'], principal: 'p' },
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const client = new Client({ name: 't', version: '1' });
    await client.connect(b);
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(TOOLS.length);
    for (const t of tools) {
      expect(t.inputSchema.type, t.name).toBe('object');
      expect(t.inputSchema.properties, t.name).toHaveProperty('ownerId');
      expect(t.annotations, t.name).toHaveProperty('readOnlyHint');
    }
    await client.close();
  });
});
