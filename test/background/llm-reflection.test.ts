// Reflection through the OpenAI-compatible extractor, end to end against a
// local HTTP server that speaks the chat-completions wire format: claims it
// returns are written with lineage and the prompt version in their origin;
// a reply that is malformed, off-schema or names episodes it was not given
// is refused, audited, and writes nothing (its episodes count as read:
// sending them again would only meet the same refusal).
import { describe, expect, it } from 'vitest';
import { createOpenAiExtractor } from '@keepgraph/extractor-openai';
import {
  chatCompletion,
  claimsCompletion,
  requestEpisodes,
  startFakeChatServer,
  type FakeChatHandler,
} from '@keepgraph/extractor-openai/testing';
import { closeAfterEach, embeddedMode, operator, user } from './harness.ts';
import { liveMemories } from './scenarios.ts';

const closing = closeAfterEach();
const alex = { name: 'Alex', type: 'person' };

async function setUp(handler: FakeChatHandler) {
  const chat = closing(await startFakeChatServer(handler));
  const extractor = createOpenAiExtractor({
    baseUrl: chat.baseUrl,
    model: 'fake-model',
    apiKey: 'k',
  });
  const f = closing(await embeddedMode.fixture({ extractor }));
  const o = f.owner();
  // A negative episode triggers reflection at once.
  const ep = await f.engine.remember(user, o, {
    kind: 'episode',
    text: 'Feedback: Alex strongly dislikes finance clients after the last project.',
    origin: { sessionId: 'llm', turn: '1' },
  });
  await f.settle();
  return { chat, f, o, ep: ep.memory };
}

describe('reflection through the OpenAI-compatible extractor', () => {
  it('writes the claims the model returns, with lineage and the prompt version', async () => {
    const { chat, f, o, ep } = await setUp((req) => {
      const [first] = requestEpisodes(req);
      return claimsCompletion([
        {
          kind: 'preference',
          text: 'Alex prefers to avoid finance clients.',
          confidence: 0.9,
          sourceIds: [first!.id],
          about: [alex],
          relations: [
            {
              subject: alex,
              type: 'PREFERS_AGAINST',
              object: { name: 'finance clients', type: 'thing' },
              reason: 'the last project',
            },
          ],
        },
      ]);
    });
    expect(chat.requests).toHaveLength(1);
    const derived = (await liveMemories(f, o)).filter((m) => m.derivedFrom.length > 0);
    expect(derived).toHaveLength(1);
    expect(derived[0]).toMatchObject({
      authority: 'agent_inferred',
      derivedFrom: [ep.id],
      origin: {
        extractor: { name: 'openai-compatible', model: 'fake-model', promptVersion: 'reflect-v2' },
      },
    });
    expect(await f.store.countUnreflected(o, f.clock.now().toISOString())).toBe(0);
  });

  for (const [what, handler] of [
    ['malformed JSON', () => chatCompletion('{"claims": [')],
    [
      'an off-schema claim',
      () => claimsCompletion([{ kind: 'episode', text: 'x', confidence: 2 }]),
    ],
    [
      'a source outside the episodes it was given',
      () =>
        claimsCompletion([
          {
            kind: 'fact',
            text: 'Alex works in finance.',
            confidence: 0.5,
            sourceIds: ['someone-elses-memory'],
            about: [alex],
            relations: [],
          },
        ]),
    ],
  ] as const) {
    it(`refuses ${what}: audited, nothing written`, async () => {
      const { f, o } = await setUp(handler as FakeChatHandler);
      expect((await liveMemories(f, o)).filter((m) => m.derivedFrom.length > 0)).toEqual([]);
      expect(await f.store.countUnreflected(o, f.clock.now().toISOString())).toBe(0);
      const refusals = (await f.engine.auditList(operator, { ownerId: o })).filter(
        (e) => e.type === 'refuse',
      );
      expect(refusals).toHaveLength(1);
      expect(refusals[0]!.reason).toMatch(/^extractor_(malformed|off_schema|foreign_source)$/);
      // The audit keeps ids, never the episode's text.
      expect(JSON.stringify(refusals[0])).not.toContain('finance');
    });
  }
});
