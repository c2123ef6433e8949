// The Extractor port over an OpenAI-compatible chat-completions endpoint
// (OpenAI, vLLM, llama.cpp server, Ollama, LiteLLM...): one POST per call,
// strict structured outputs, and an all-or-nothing check of the reply.
// Retrying is the caller's decision (reflection's), guided by `retryable`.
import { z } from 'zod';
import type { ExtractorInfo } from '@keepgraph/core';
import type { ExtractedClaim, ExtractionInput, Extractor } from '@keepgraph/core/ports';
import pkg from '../package.json' with { type: 'json' };
import { ExtractionRejected, isRetryableStatus } from './extraction-rejected.ts';
import { PROMPT_VERSION, promptMessages } from './prompt.ts';
import { describeIssues, replyJsonSchema, ReplySchema, toExtractedClaims } from './reply-schema.ts';

/** Options of {@link createOpenAiExtractor}. */
export interface OpenAiExtractorOptions {
  /** The API root, `/chat/completions` is appended: e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  /** The model name the endpoint knows, sent as is and recorded in `info.model`. */
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>` when set; local servers often need none. */
  apiKey?: string;
  /** Whole-request budget, headers and body, in ms (default 30000). */
  timeoutMs?: number;
  /** Sampling temperature (default 0); null leaves it out, for models that only accept their own. */
  temperature?: number | null;
  /** The fetch to use (default the global one). */
  fetch?: typeof globalThis.fetch;
}

/** The extractor's name in `ExtractorInfo`, whatever the provider behind the URL. */
export const EXTRACTOR_NAME = 'openai-compatible';

/** The `json_schema.name` of the reply format. */
export const REPLY_FORMAT_NAME = 'keepgraph_claims';

const OptionsSchema = z.object({
  baseUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  model: z.string().trim().min(1, 'must not be blank').max(512),
  apiKey: z.string().min(1, 'must not be empty when given').optional(),
  timeoutMs: z.number().int('must be an integer').positive('must be positive').default(30_000),
  temperature: z.number().min(0).max(2).nullable().default(0),
});

/** Only what is read from a chat completion; anything else may come along. */
const CompletionSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          refusal: z.string().nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
});

/**
 * An {@link Extractor} that asks an OpenAI-compatible chat model for the
 * durable claims in a group of one owner's episodes.
 *
 * Each call sends one request: the fixed system prompt, the episodes as a JSON
 * document in the user message, and a strict `json_schema` response format. The
 * reply is accepted whole or not at all; every failure is an
 * {@link ExtractionRejected} whose `retryable` tells transient failures
 * (network, timeout, HTTP 408/429/5xx) from replies that asking again would not
 * fix (malformed, off-schema, refused, a source outside the episodes).
 *
 * @throws Error at creation when an option is invalid (validated once, here).
 */
export function createOpenAiExtractor(options: OpenAiExtractorOptions): Extractor {
  const parsed = OptionsSchema.safeParse(options);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ');
    throw new Error(`invalid OpenAI-compatible extractor options: ${problems}`);
  }
  const { baseUrl, model, apiKey, timeoutMs, temperature } = parsed.data;
  const doFetch = options.fetch ?? globalThis.fetch;
  const url = `${baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const info: ExtractorInfo = {
    name: EXTRACTOR_NAME,
    version: pkg.version,
    model,
    promptVersion: PROMPT_VERSION,
  };

  async function extract(input: ExtractionInput): Promise<ExtractedClaim[]> {
    // Nothing to read, nothing to ask (and no enum of zero ids to send).
    if (input.episodes.length === 0) return [];
    const ids = input.episodes.map((e) => e.id);
    const body = {
      model,
      ...(temperature === null ? {} : { temperature }),
      messages: promptMessages(input.episodes),
      response_format: {
        type: 'json_schema',
        json_schema: { name: REPLY_FORMAT_NAME, strict: true, schema: replyJsonSchema(ids) },
      },
    };
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
    };
    if (apiKey !== undefined) headers.authorization = `Bearer ${apiKey}`;

    const text = await post(doFetch, url, headers, JSON.stringify(body), timeoutMs);
    const content = messageContent(text);
    return checkedClaims(content, new Set(ids));
  }

  return { info, extract };
}

/** POST and read the whole body within the time budget; non-2xx is a rejection. */
async function post(
  doFetch: typeof globalThis.fetch,
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<string> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const res = await doFetch(url, { method: 'POST', headers, body, signal });
    const text = await res.text();
    if (!res.ok) {
      const retryAfterMs = retryAfter(res.headers.get('retry-after'));
      return reject('http_error', `HTTP ${res.status}${providerCode(text)}`, {
        retryable: isRetryableStatus(res.status),
        status: res.status,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      });
    }
    return text;
  } catch (e) {
    if (e instanceof ExtractionRejected) throw e;
    if (signal.aborted)
      throw new ExtractionRejected('timeout', `no complete answer within ${timeoutMs} ms`);
    throw new ExtractionRejected('network', `request failed: ${networkCode(e)}`, { cause: e });
  }
}

/** The assistant message's content, or why there is none to read. */
function messageContent(body: string): string {
  const json = parseJson(body);
  if (json === undefined) return reject('malformed', 'response body is not JSON');
  const completion = CompletionSchema.safeParse(json);
  if (!completion.success)
    return reject('malformed', 'response is not a chat completion with choices[0].message');
  const choice = completion.data.choices[0]!;
  if (choice.message.refusal) return reject('refused', 'the model refused (message.refusal)');
  if (choice.finish_reason === 'content_filter')
    return reject('refused', 'stopped by a content filter');
  if (choice.finish_reason === 'length')
    return reject('malformed', 'reply cut short (finish_reason: length)');
  const content = choice.message.content;
  if (content == null || content.trim() === '')
    return reject('malformed', 'choices[0].message.content is empty');
  return content;
}

/** Parse, validate and map the claims; the whole reply or nothing. */
function checkedClaims(content: string, episodeIds: ReadonlySet<string>): ExtractedClaim[] {
  const json = parseJson(content);
  if (json === undefined) return reject('malformed', 'message content is not JSON');
  const reply = ReplySchema.safeParse(json);
  if (!reply.success) return reject('off_schema', describeIssues(reply.error));
  for (const [c, claim] of reply.data.claims.entries()) {
    const s = claim.sourceIds.findIndex((id) => !episodeIds.has(id));
    // The id itself stays out of the message: it is model output, not ours to log.
    if (s >= 0) {
      return reject(
        'foreign_source',
        `claims[${c}].sourceIds[${s}] is not one of the ${episodeIds.size} episodes`,
      );
    }
  }
  return toExtractedClaims(reply.data);
}

function reject(
  reason: ConstructorParameters<typeof ExtractionRejected>[0],
  detail: string,
  opts?: ConstructorParameters<typeof ExtractionRejected>[2],
): never {
  throw new ExtractionRejected(reason, detail, opts);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const TOKEN = /^[A-Za-z0-9_.-]{1,64}$/;

/** The provider's error code or type (`rate_limit_exceeded`), never its message, which may quote the input. */
function providerCode(body: string): string {
  const json = parseJson(body) as { error?: { code?: unknown; type?: unknown } } | undefined;
  const err = json?.error;
  for (const v of [err?.code, err?.type])
    if (typeof v === 'string' && TOKEN.test(v)) return ` (${v})`;
  return '';
}

/** `ECONNREFUSED` and the like, from fetch's error or its cause. */
function networkCode(e: unknown): string {
  const cause = (e as { cause?: { code?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string' && TOKEN.test(cause.code)) return cause.code;
  return e instanceof Error ? e.name : 'unknown error';
}

/** Retry-After in seconds or as an HTTP date, in ms from now. */
function retryAfter(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
