// Test helpers: a real local HTTP server speaking the chat-completions wire
// format with scripted replies, and builders for those replies. Used by this
// package's tests and by the workers' tests to drive reflection end to end.
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';
import type { ExtractionInput } from '@keepgraph/core/ports';
import { EPISODES_CLOSE, EPISODES_OPEN } from './prompt.ts';

/** One request the fake server received. */
export interface RecordedChatRequest {
  method: string;
  /** Path and query, e.g. `/v1/chat/completions`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON, or the raw text when it is not JSON. */
  body: unknown;
}

/** How the fake server answers one request. */
export type FakeChatReply =
  /** A JSON body (default status 200). */
  | { status?: number; json: unknown; headers?: Record<string, string> }
  /** A raw body, e.g. something that is not JSON. */
  | { status?: number; text: string; headers?: Record<string, string> }
  /** Never answer (until the server closes): for timeouts. */
  | { hang: true };

/** Decides the reply; `index` counts requests from 0. May throw: the server then answers 500. */
export type FakeChatHandler = (
  req: RecordedChatRequest,
  index: number,
) => FakeChatReply | Promise<FakeChatReply>;

export interface FakeChatServer {
  /** `http://127.0.0.1:<port>/v1`: pass as the extractor's `baseUrl`. */
  baseUrl: string;
  /** Every request received so far, in order. */
  requests: RecordedChatRequest[];
  /** Stops listening and drops open (hanging) connections. */
  close(): Promise<void>;
}

/** Start the fake chat-completions server on 127.0.0.1, on a free port. */
export async function startFakeChatServer(handler: FakeChatHandler): Promise<FakeChatServer> {
  const requests: RecordedChatRequest[] = [];
  const server = createServer((req, res) => {
    // A request that breaks off before its body ends gets no reply.
    record(req).then(
      (recorded) => {
        const index = requests.push(recorded) - 1;
        Promise.resolve()
          .then(() => handler(recorded, index))
          .then(
            (reply) => send(res, reply),
            (e: unknown) =>
              send(res, {
                status: 500,
                json: { error: { message: String(e), type: 'fake_server_error' } },
              }),
          );
      },
      () => res.destroy(),
    );
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => ok());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

/** A request as the fake server keeps it, once its body has ended. */
async function record(req: IncomingMessage): Promise<RecordedChatRequest> {
  const raw = await text(req);
  let body: unknown = raw;
  try {
    body = JSON.parse(raw) as unknown;
  } catch {
    // keep the raw text
  }
  return { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
}

function send(res: ServerResponse, reply: FakeChatReply): void {
  if ('hang' in reply) return;
  const isJson = 'json' in reply;
  const body = isJson ? JSON.stringify(reply.json) : reply.text;
  res.writeHead(reply.status ?? 200, {
    'content-type': isJson ? 'application/json' : 'text/plain',
    ...reply.headers,
  });
  res.end(body);
}

/** A chat completion whose message content is `content` (a string as is, anything else JSON-encoded). */
export function chatCompletion(
  content: unknown,
  extra: { finishReason?: string; refusal?: string | null; model?: string } = {},
): { json: unknown } {
  return {
    json: {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: extra.model ?? 'fake-model',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content:
              typeof content === 'string' || content === null ? content : JSON.stringify(content),
            refusal: extra.refusal ?? null,
          },
          finish_reason: extra.finishReason ?? 'stop',
        },
      ],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    },
  };
}

/** A completion in which the model refuses. */
export function refusalCompletion(refusal = "I'm sorry, I can't help with that."): {
  json: unknown;
} {
  return chatCompletion(null, { refusal });
}

/** A completion carrying `{ claims }`, the extractor's reply format. */
export function claimsCompletion(claims: unknown[]): { json: unknown } {
  return chatCompletion({ claims });
}

/**
 * The episodes a recorded extraction request carried, read back from the
 * user message's JSON document: lets a handler answer with claims citing
 * the ids it was actually given.
 */
export function requestEpisodes(req: RecordedChatRequest): ExtractionInput['episodes'] {
  const messages = (req.body as { messages?: { role: string; content: string }[] }).messages ?? [];
  const user = messages.find((m) => m.role === 'user');
  if (!user) throw new Error('the request has no user message');
  const start = user.content.indexOf(`${EPISODES_OPEN}\n`);
  const end = user.content.lastIndexOf(`\n${EPISODES_CLOSE}`);
  if (start < 0 || end < start) throw new Error('the user message has no episodes document');
  const doc = JSON.parse(user.content.slice(start + EPISODES_OPEN.length + 1, end)) as {
    episodes: ExtractionInput['episodes'];
  };
  return doc.episodes;
}
