// Configuration from the environment, read once at the edge (server or
// worker start): which extractor, and where the OpenAI-compatible endpoint is.
import type { Extractor } from '@keepgraph/core/ports';
import { createOpenAiExtractor } from './openai-extractor.ts';

/** The variables {@link openAiExtractorFromEnv} reads. */
export const EXTRACTOR_ENV = {
  /** `openai` selects this extractor; unset, empty or `none` selects none. */
  extractor: 'KEEPGRAPH_EXTRACTOR',
  /** The API root, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. Required. */
  baseUrl: 'KEEPGRAPH_OPENAI_BASE_URL',
  /** The model name. Required. */
  model: 'KEEPGRAPH_OPENAI_MODEL',
  /** Bearer token; optional (local servers often need none). */
  apiKey: 'KEEPGRAPH_OPENAI_API_KEY',
  /** Per-request budget in ms; optional, default 30000. */
  timeoutMs: 'KEEPGRAPH_OPENAI_TIMEOUT_MS',
} as const;

/** Values `KEEPGRAPH_EXTRACTOR` may take. */
export const EXTRACTOR_CHOICES = ['openai', 'none'] as const;

/** An environment variable set to the empty string (or blanks) counts as unset. */
function read(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

/**
 * The OpenAI-compatible extractor the environment asks for, or null when it
 * asks for none (`KEEPGRAPH_EXTRACTOR` unset, empty or `none`, and no
 * `KEEPGRAPH_OPENAI_*` endpoint given).
 *
 * There is no default endpoint: episodes leave the machine only for a URL
 * someone wrote down.
 *
 * @throws Error naming the variables, when half-configured: `openai` without a
 *   base URL or model, an endpoint or model without `KEEPGRAPH_EXTRACTOR=openai`,
 *   an unknown extractor, or an invalid value.
 */
export function openAiExtractorFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  overrides: { fetch?: typeof globalThis.fetch } = {},
): Extractor | null {
  const E = EXTRACTOR_ENV;
  const choice = read(env, E.extractor)?.toLowerCase();
  const baseUrl = read(env, E.baseUrl);
  const model = read(env, E.model);
  const apiKey = read(env, E.apiKey);
  const timeout = read(env, E.timeoutMs);

  if (choice !== undefined && !(EXTRACTOR_CHOICES as readonly string[]).includes(choice)) {
    throw new Error(
      `${E.extractor} must be one of ${EXTRACTOR_CHOICES.join(', ')} (got ${JSON.stringify(choice)})`,
    );
  }
  if (choice !== 'openai') {
    const stray = [E.baseUrl, E.model].filter((n) => read(env, n) !== undefined);
    if (stray.length > 0 && choice === undefined) {
      throw new Error(
        `${stray.join(' and ')} set but ${E.extractor} is not: set ${E.extractor}=openai to use the endpoint, or ${E.extractor}=none to run without an extractor`,
      );
    }
    return null;
  }

  const missing: string[] = [];
  if (baseUrl === undefined) missing.push(E.baseUrl);
  if (model === undefined) missing.push(E.model);
  if (missing.length > 0) {
    throw new Error(`${E.extractor}=openai needs ${missing.join(' and ')}`);
  }
  let timeoutMs: number | undefined;
  if (timeout !== undefined) {
    timeoutMs = Number(timeout);
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
      throw new Error(
        `${E.timeoutMs} must be a positive integer of milliseconds (got ${JSON.stringify(timeout)})`,
      );
    }
  }
  try {
    return createOpenAiExtractor({
      baseUrl: baseUrl!,
      model: model!,
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(overrides.fetch ? { fetch: overrides.fetch } : {}),
    });
  } catch (e) {
    // Name the variables, not the option fields.
    const message = (e as Error).message
      .replace(/\bbaseUrl\b/g, E.baseUrl)
      .replace(/\bmodel\b/g, E.model);
    throw new Error(message, { cause: e });
  }
}
