// Bad MCP requests are answered as the caller's mistake, not as a fault
// (found by the HTTP fuzz, test/reliability/fuzz-http.test.ts): params
// that do not parse are -32602 Invalid params, a resource that does not
// exist -32002, a malformed owner in a resource URI -32602 with its
// KeepGraph code; the SDK alone answered every one with -32603 Internal
// error. Raw JSON-RPC over the SDK's in-memory transport, as a client
// that does not check its own requests would send it.
import { describe, expect, it } from 'vitest';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer } from '../src/index.ts';

/** Send one request to a fresh server; its answer. The engine is never reached. */
async function ask(method: string, params: unknown): Promise<Record<string, unknown>> {
  const server = createMcpServer({
    engine: {} as never,
    caller: { role: 'agent', owners: ['o'], principal: 'p' },
  });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const answer = new Promise<JSONRPCMessage>((resolve) => (clientSide.onmessage = resolve));
  await clientSide.start();
  await clientSide.send({ jsonrpc: '2.0', id: 1, method, params } as JSONRPCMessage);
  const a = (await answer) as Record<string, unknown>;
  await server.close();
  return a;
}

describe('MCP protocol errors', () => {
  it('tool call arguments that are not an object -> -32602 Invalid params', async () => {
    const a = await ask('tools/call', { name: 'recall', arguments: 'not an object' });
    expect(a.error).toMatchObject({ code: -32602 });
  });

  it('a resource that does not exist -> -32002 with the not_found code', async () => {
    const a = await ask('resources/read', { uri: 'keepgraph://owners//profile' });
    expect(a.error).toMatchObject({ code: -32002, data: { code: 'not_found' } });
  });

  it('a profile URI whose owner does not %-decode -> -32602 invalid_input', async () => {
    const a = await ask('resources/read', { uri: 'keepgraph://owners/%/profile' });
    expect(a.error).toMatchObject({ code: -32602, data: { code: 'invalid_input' } });
  });

  it('an initialize whose params do not parse -> -32602 Invalid params', async () => {
    const a = await ask('initialize', { protocolVersion: 7, capabilities: [] });
    expect(a.error).toMatchObject({ code: -32602 });
  });

  it('a well-formed request still answers', async () => {
    const a = await ask('resources/templates/list', {});
    expect(a.result).toMatchObject({ resourceTemplates: [{ uriTemplate: expect.any(String) }] });
  });
});
