// Configuration from the environment: none, complete, or a clear error naming
// the variables when half-configured.
import { describe, expect, it } from 'vitest';
import { openAiExtractorFromEnv, PROMPT_VERSION } from '../src/index.ts';
import { claimsCompletion, startFakeChatServer } from '../src/testing.ts';

describe('openAiExtractorFromEnv', () => {
  it('returns null when no extractor is configured, or none is asked for', () => {
    expect(openAiExtractorFromEnv({})).toBeNull();
    expect(openAiExtractorFromEnv({ KEEPGRAPH_EXTRACTOR: '' })).toBeNull();
    expect(
      openAiExtractorFromEnv({ KEEPGRAPH_EXTRACTOR: 'none', KEEPGRAPH_OPENAI_MODEL: 'm' }),
    ).toBeNull();
    // A key alone (e.g. exported in a shell profile) selects nothing.
    expect(openAiExtractorFromEnv({ KEEPGRAPH_OPENAI_API_KEY: 'sk-x' })).toBeNull();
  });

  it('throws, naming the variables, when half-configured', () => {
    expect(() => openAiExtractorFromEnv({ KEEPGRAPH_EXTRACTOR: 'openai' })).toThrow(
      'KEEPGRAPH_EXTRACTOR=openai needs KEEPGRAPH_OPENAI_BASE_URL and KEEPGRAPH_OPENAI_MODEL',
    );
    expect(() =>
      openAiExtractorFromEnv({
        KEEPGRAPH_EXTRACTOR: 'openai',
        KEEPGRAPH_OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
      }),
    ).toThrow('KEEPGRAPH_EXTRACTOR=openai needs KEEPGRAPH_OPENAI_MODEL');
    expect(() =>
      openAiExtractorFromEnv({
        KEEPGRAPH_OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
        KEEPGRAPH_OPENAI_MODEL: 'm',
      }),
    ).toThrow(
      /KEEPGRAPH_OPENAI_BASE_URL and KEEPGRAPH_OPENAI_MODEL set but KEEPGRAPH_EXTRACTOR is not/,
    );
    expect(() => openAiExtractorFromEnv({ KEEPGRAPH_EXTRACTOR: 'anthropic' })).toThrow(
      /KEEPGRAPH_EXTRACTOR must be one of openai, none/,
    );
    expect(() =>
      openAiExtractorFromEnv({
        KEEPGRAPH_EXTRACTOR: 'openai',
        KEEPGRAPH_OPENAI_BASE_URL: 'localhost:11434',
        KEEPGRAPH_OPENAI_MODEL: 'm',
      }),
    ).toThrow(/KEEPGRAPH_OPENAI_BASE_URL must be an http\(s\) URL/);
    expect(() =>
      openAiExtractorFromEnv({
        KEEPGRAPH_EXTRACTOR: 'openai',
        KEEPGRAPH_OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
        KEEPGRAPH_OPENAI_MODEL: 'm',
        KEEPGRAPH_OPENAI_TIMEOUT_MS: '5s',
      }),
    ).toThrow(/KEEPGRAPH_OPENAI_TIMEOUT_MS must be a positive integer/);
  });

  it('builds a working extractor when configured', async () => {
    const server = await startFakeChatServer(() => claimsCompletion([]));
    try {
      const extractor = openAiExtractorFromEnv({
        KEEPGRAPH_EXTRACTOR: 'OpenAI',
        KEEPGRAPH_OPENAI_BASE_URL: server.baseUrl,
        KEEPGRAPH_OPENAI_MODEL: 'llama3.1:8b',
        KEEPGRAPH_OPENAI_API_KEY: 'sk-env',
        KEEPGRAPH_OPENAI_TIMEOUT_MS: '2000',
      });
      expect(extractor?.info).toMatchObject({
        name: 'openai-compatible',
        model: 'llama3.1:8b',
        promptVersion: PROMPT_VERSION,
      });
      await extractor!.extract({
        ownerId: 'o',
        episodes: [{ id: 'e1', observedAt: '2025-01-01T00:00:00.000Z', text: 'I live in Lisbon.' }],
      });
      expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-env');
    } finally {
      await server.close();
    }
  });
});
