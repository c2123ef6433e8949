// KeepGraphStore inside a real LangGraph graph (deterministic nodes, no
// LLM), against `keepgraph start`: one node puts a preference, the next
// searches for it and answers with its text, authority and origin; then the
// store's get, structured values, namespaces and delete (forget with the
// cascade, verified gone).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Annotation,
  END,
  START,
  StateGraph,
  type LangGraphRunnableConfig,
} from '@langchain/langgraph';
import { KeepGraphStore } from '@keepgraph/langgraph';
import { scratchKeepGraph, userKeyFor, type KeepGraphProcess } from './keepgraph-process.ts';

const State = Annotation.Root({
  owner: Annotation<string>(),
  question: Annotation<string>(),
  answer: Annotation<string>(),
  authority: Annotation<string>(),
  session: Annotation<string>(),
});

describe('KeepGraphStore in a LangGraph graph', () => {
  const server = scratchKeepGraph('keepgraph-langgraph-', { KEEPGRAPH_RATE_LIMIT: '0' });
  let kg: KeepGraphProcess;
  let store: KeepGraphStore;
  const owner = `lg-${randomUUID()}`;

  beforeAll(async () => {
    kg = await server.start();
    const key = await userKeyFor(kg, owner, 'langgraph');
    store = new KeepGraphStore({ baseUrl: kg.base, apiKey: key, origin: { sessionId: 'lg-1' } });
  }, 180_000);

  afterAll(() => server.end('stop'));

  it('remembers in one node and recalls with provenance in the next', async () => {
    const graph = new StateGraph(State)
      .addNode('remember', async (s: typeof State.State, config: LangGraphRunnableConfig) => {
        await config.store!.put([s.owner, 'prefs'], 'seat', {
          text: 'Alex prefers aisle seats on long flights',
          kind: 'preference',
        });
        return {};
      })
      .addNode('recall', async (s: typeof State.State, config: LangGraphRunnableConfig) => {
        const [top] = await config.store!.search([s.owner], { query: s.question, limit: 3 });
        return {
          answer: String(top?.value.text),
          authority: String(top?.value.authority),
          session: String((top?.value.origin as { sessionId?: string }).sessionId),
        };
      })
      .addEdge(START, 'remember')
      .addEdge('remember', 'recall')
      .addEdge('recall', END)
      .compile({ store });
    const out = await graph.invoke({ owner, question: 'Which seat should I book for Alex?' });
    expect(out).toMatchObject({
      answer: 'Alex prefers aisle seats on long flights',
      authority: 'user',
      session: 'lg-1',
    });
  }, 60_000);

  it('gets, keeps structured values, supersedes on put, lists namespaces and forgets on delete', async () => {
    const got = await store.get([owner, 'prefs'], 'seat');
    expect(got).toMatchObject({
      namespace: [owner, 'prefs'],
      key: 'seat',
      value: { kind: 'preference' },
    });
    await store.put([owner, 'trips'], 'next', { city: 'Porto', month: 'May', nights: 3 });
    const trip = await store.get([owner, 'trips'], 'next');
    expect(trip?.value).toMatchObject({
      city: 'Porto',
      month: 'May',
      nights: 3,
      authority: 'user',
    });
    await store.put([owner, 'trips'], 'next', { city: 'Lisbon', month: 'June', nights: 2 });
    expect((await store.get([owner, 'trips'], 'next'))?.value).toMatchObject({ city: 'Lisbon' });
    const filtered = await store.search([owner, 'trips'], { filter: { nights: { $lt: 3 } } });
    expect(filtered.map((i) => i.value.city)).toEqual(['Lisbon']);
    expect((await store.listNamespaces({ prefix: [owner] })).sort()).toEqual([
      [owner, 'prefs'],
      [owner, 'trips'],
    ]);

    const id = got!.value.memoryId as string;
    await store.delete([owner, 'prefs'], 'seat');
    expect(await store.get([owner, 'prefs'], 'seat')).toBeNull();
    const check = await store.client.verifyForgotten(owner, { ids: [id] });
    expect(check.forgotten).toBe(true);
  }, 60_000);

  it('refuses a namespace with no owner, and a secret, with our codes', async () => {
    await expect(store.get([], 'x')).rejects.toMatchObject({ code: 'owner_required' });
    await expect(
      store.put([owner], 'token', {
        text: `the token is ghp_${randomUUID().replaceAll('-', '')}Wxyz`,
      }),
    ).rejects.toMatchObject({ code: 'refused_secret' });
    await expect(store.get([`other-${randomUUID()}`], 'x')).rejects.toMatchObject({
      code: 'owner_out_of_scope',
    });
  }, 60_000);
});
