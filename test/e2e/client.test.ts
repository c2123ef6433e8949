// The TypeScript client against `keepgraph start` on the README's defaults:
// the agent's flow (remember with origin, recall with origin and authority,
// why, correct, forget, verify), the memory API (list with filters,
// sessions, export and import), and refusals as typed errors with our
// codes that write nothing: a secret, another owner, malformed input.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeepGraphClient, KeepGraphError } from '@keepgraph/client';
import { scratchKeepGraph, type KeepGraphProcess } from './keepgraph-process.ts';

describe('the TypeScript client against keepgraph start', () => {
  const server = scratchKeepGraph('keepgraph-client-', { KEEPGRAPH_RATE_LIMIT: '0' });
  let kg: KeepGraphProcess;
  let kgc: KeepGraphClient;
  const owner = `ts-${randomUUID()}`;

  beforeAll(async () => {
    kg = await server.start();
    const operator = new KeepGraphClient({ baseUrl: kg.base, apiKey: kg.operatorKey });
    const { key } = await operator.createKey({ name: 'ts agent', role: 'user', owners: [owner] });
    kgc = new KeepGraphClient({ baseUrl: kg.base, apiKey: key });
  }, 180_000);

  afterAll(() => server.end('stop'));

  const codeOf = (p: Promise<unknown>) =>
    p.then(
      () => 'resolved',
      (e: unknown) => (e instanceof KeepGraphError ? `${e.status} ${e.code}` : String(e)),
    );

  it('remembers, recalls with origin and authority, explains, corrects, forgets and verifies', async () => {
    const { memory } = await kgc.remember(owner, {
      kind: 'preference',
      text: 'Alex prefers aisle seats on long flights',
      origin: { sessionId: 'ts-1', turn: '2' },
      tags: ['travel'],
    });
    const recalled = await kgc.recall(owner, 'Which seat should I book?', { topK: 3 });
    expect(recalled.results[0]).toMatchObject({
      memory: { id: memory.id },
      origin: { sessionId: 'ts-1', turn: '2' },
      authority: 'user',
    });
    const why = await kgc.why(owner, 'aisle seats');
    expect(why.lineage[memory.id]!.nodes[0]!.key).toBe(memory.id);
    const fixed = await kgc.correct(owner, memory.id, {
      text: 'Alex prefers window seats on long flights',
      reason: 'outdated',
    });
    expect(fixed).toMatchObject({ corrected: memory.id, superseded: true });
    const listed = await kgc.listMemories(owner, {
      filter: { kinds: ['preference'], tag: 'travel' },
    });
    expect(listed.memories.map((m) => m.id)).toEqual([fixed.memory.id]);

    const receipt = await kgc.forget(owner, [fixed.memory.id]);
    const check = await kgc.verifyForgotten(owner, {
      ids: receipt.deletedMemoryIds,
      contentHashes: receipt.deletedContentHashes,
    });
    expect(check.forgotten).toBe(true);
    expect((await kgc.recall(owner, 'window seats')).results.map((r) => r.memory.id)).not.toContain(
      fixed.memory.id,
    );
  }, 60_000);

  it('sessions, export and import, and an idempotent repeat', async () => {
    await kgc.sessionAppend(owner, 'ts-2', {
      messages: [{ role: 'user', text: 'I would like to visit Porto in May' }],
      remember: true,
    });
    expect((await kgc.readSession(owner, 'ts-2')).messages).toHaveLength(1);
    const ctx = await kgc.sessionContext(owner, 'ts-2', 'Where does the user want to go?');
    expect(ctx.prompt).toContain('Porto');
    const dry = await kgc.forgetSession(owner, 'ts-2', { dryRun: true });
    expect(dry.dryRun).toBe(true);
    const exported = await kgc.exportMemories(owner);
    expect(exported.map((m) => m.text)).toContain('I would like to visit Porto in May');
    const to = `ts-copy-${randomUUID()}`;
    const op = new KeepGraphClient({ baseUrl: kg.base, apiKey: kg.operatorKey });
    const report = await op.importMemories(to, exported.map((m) => JSON.stringify(m)).join('\n'));
    expect(report.imported).toBe(exported.length);

    const body = {
      kind: 'fact' as const,
      text: 'The office is on the third floor',
      origin: { sessionId: 'ts-3' },
    };
    const a = await kgc.remember(owner, body, { idempotencyKey: 'ts-once' });
    const b = await kgc.remember(owner, body, { idempotencyKey: 'ts-once' });
    expect(b.memory.id).toBe(a.memory.id);
  }, 60_000);

  it('refuses a secret, another owner and malformed input with typed errors, writing nothing', async () => {
    const before = (await kgc.listMemories(owner, { limit: 500 })).memories.length;
    expect(
      await codeOf(
        kgc.remember(owner, {
          kind: 'fact',
          text: `the deploy token is ghp_${randomUUID().replaceAll('-', '')}Wxyz`,
          origin: { sessionId: 'ts-4' },
        }),
      ),
    ).toBe('422 refused_secret');
    expect(await codeOf(kgc.recall(`someone-else-${randomUUID()}`, 'anything'))).toBe(
      '403 owner_out_of_scope',
    );
    expect(await codeOf(kgc.remember(owner, { kind: 'gossip', text: 'x' } as never))).toBe(
      '400 invalid_input',
    );
    expect(await codeOf(kgc.correct(owner, randomUUID(), { text: 'x', reason: 'other' }))).toBe(
      '404 not_found',
    );
    expect((await kgc.listMemories(owner, { limit: 500 })).memories.length).toBe(before);
    const stranger = new KeepGraphClient({ baseUrl: kg.base, apiKey: 'kgk_0000000000000000_nope' });
    expect(await codeOf(stranger.listMemories(owner))).toBe('401 unauthenticated');
  }, 60_000);
});
