// Sending a fuzz case over real HTTP on 127.0.0.1: its placeholders turned
// into bytes, then node:http for what an HTTP client can say (any method,
// raw %-escapes kept as they are: fetch would resolve `..`), and a raw
// socket for what it cannot (a body shorter or longer than its
// Content-Length, a malformed chunk, both framings at once, raw bytes in
// the path, headers past the limit, garbage for a request line).
import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { AsJson, Deep, Filler, Many, Ref, type WireTrick } from './hostile.ts';

/** A part sent as it is: a path segment already escaped, a query string, a body's text. */
export class Raw {
  constructor(readonly text: string) {}
}

/** What a reference resolves to when a case is sent (the pool's member; `wrap` is applied after). */
export type Resolve = (ref: Ref) => string;

const resolved = (ref: Ref, resolve: Resolve) => (ref.wrap ? ref.wrap(resolve(ref)) : resolve(ref));

/** A case's request, ready for the wire. */
export interface WireRequest {
  method: string;
  /** Path and query, escaped as they go on the wire (raw tricks may hold raw bytes). */
  path: string;
  headers: Record<string, string>;
  body: Buffer | null;
  /** Sent over a raw socket with this trick; absent: node:http. */
  trick?: WireTrick;
}

export interface WireResponse {
  /** 0: no answer (the connection closed or timed out first). */
  status: number;
  headers: Record<string, string>;
  text: string;
  ms: number;
  /** Why there was no answer, when there was none. */
  error?: string;
}

/** A value with its placeholders resolved, as JSON text (deep nestings written directly). */
export function jsonText(value: unknown, resolve: Resolve): string {
  if (value instanceof Raw) return value.text;
  if (value instanceof Ref) return JSON.stringify(resolved(value, resolve));
  if (value instanceof Filler) return JSON.stringify(value.unit.repeat(value.count));
  if (value instanceof Deep)
    return value.shape === 'array'
      ? '['.repeat(value.depth) + ']'.repeat(value.depth)
      : '{"a":'.repeat(value.depth) + '1' + '}'.repeat(value.depth);
  if (value instanceof AsJson) return JSON.stringify(jsonText(value.value, resolve));
  if (value instanceof Many) {
    const item = jsonText(value.item, resolve);
    return `[${new Array<string>(value.count).fill(item).join(',')}]`;
  }
  if (Array.isArray(value)) return `[${value.map((v) => jsonText(v, resolve)).join(',')}]`;
  if (typeof value === 'object' && value !== null)
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v, resolve)}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/**
 * encodeURIComponent, except that a lone surrogate (which it refuses) is
 * written as the three bytes UTF-8 would give it (WTF-8): bytes that do not
 * decode, which is the point.
 */
export function escape(s: string): string {
  return s
    .split(/(\p{Cs})/u)
    .map((part) => {
      if (!/^\p{Cs}$/u.test(part)) return encodeURIComponent(part);
      const u = part.charCodeAt(0);
      return [0xe0 | (u >> 12), 0x80 | ((u >> 6) & 0x3f), 0x80 | (u & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
    })
    .join('');
}

/** A path parameter or query value as text on the wire. */
export function segment(value: unknown, resolve: Resolve): string {
  if (value instanceof Raw) return value.text;
  if (value instanceof Ref) return escape(resolved(value, resolve));
  if (value instanceof Filler) return escape(value.unit.repeat(value.count));
  if (typeof value === 'string') return escape(value);
  if (value === undefined) return '';
  // Numbers, booleans; objects and lists as their JSON (a wrong type in a query).
  return escape(typeof value === 'object' ? jsonText(value, resolve) : String(value));
}

/** Is `s` sendable as a header value by node:http (latin-1 printable, tab)? */
const HEADER_SAFE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Is `s` sendable as a request path by node:http? */
const PATH_SAFE = /^[\x21-\x7e]*$/;

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/** Stop reusing connections (at the end of a run). */
export function closeAgent(): void {
  agent.destroy();
}

const TIMEOUT_MS = 60_000;
/** How long a raw request waits for its answer: some tricks get none. */
const RAW_TIMEOUT_MS = 8_000;

/** Send one request to `host:port`. Never throws: a failure is an answer with status 0. */
export async function send(port: number, req: WireRequest): Promise<WireResponse> {
  const t0 = performance.now();
  const raw =
    req.trick !== undefined ||
    !PATH_SAFE.test(req.path) ||
    Object.values(req.headers).some((v) => !HEADER_SAFE.test(v));
  try {
    const r = raw ? await sendRaw(port, req) : await sendHttp(port, req);
    return { ...r, ms: performance.now() - t0 };
  } catch (e) {
    return { status: 0, headers: {}, text: '', ms: performance.now() - t0, error: String(e) };
  }
}

function sendHttp(port: number, req: WireRequest): Promise<Omit<WireResponse, 'ms'>> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...req.headers };
    if (req.body !== null) headers['content-length'] = String(req.body.length);
    const r = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: req.method,
        path: req.path,
        headers,
        agent,
        timeout: TIMEOUT_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: flatHeaders(res.headers),
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    r.on('timeout', () => r.destroy(new Error(`no answer in ${TIMEOUT_MS} ms`)));
    r.on('error', reject);
    r.end(req.body ?? undefined);
  });
}

function flatHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(h).flatMap(([k, v]) => (v === undefined ? [] : [[k, [v].flat().join(', ')]])),
  );
}

/** The bytes of a raw request, with its trick applied. */
export function rawBytes(port: number, req: WireRequest): Buffer {
  const body = req.body ?? Buffer.alloc(0);
  const lines = [
    `${req.method} ${req.path} HTTP/1.1`,
    `host: 127.0.0.1:${port}`,
    'connection: close',
  ];
  for (const [k, v] of Object.entries(req.headers)) lines.push(`${k}: ${v}`);
  let payload = body;
  switch (req.trick) {
    case 'short-body':
      lines.push(`content-length: ${body.length + 50}`);
      break;
    case 'cut-json':
      payload = body.subarray(0, Math.floor(body.length / 2));
      lines.push(`content-length: ${payload.length}`);
      break;
    case 'long-body':
      lines.push(`content-length: ${Math.max(0, body.length - 7)}`);
      break;
    case 'bad-chunk':
      lines.push('transfer-encoding: chunked');
      payload = Buffer.concat([Buffer.from(`zz\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]);
      break;
    case 'cl-and-te':
      lines.push(`content-length: ${body.length}`, 'transfer-encoding: chunked');
      break;
    case 'bad-length':
      lines.push(`content-length: ${body.length}`, `content-length: ${body.length + 1}`);
      break;
    case 'huge-header':
      lines.push(`x-filler: ${'h'.repeat(20_000)}`, `content-length: ${body.length}`);
      break;
    case 'bad-request-line':
      lines[0] = `${req.method}\u0000 ${req.path} HTTP/9.9 extra`;
      lines.push(`content-length: ${body.length}`);
      break;
    case 'raw-path':
    case undefined:
      lines.push(`content-length: ${body.length}`);
      break;
  }
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8'), payload]);
}

function sendRaw(port: number, req: WireRequest): Promise<Omit<WireResponse, 'ms'>> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (error?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const parsed = parseResponse(Buffer.concat(chunks));
      resolve(
        parsed ?? { status: 0, headers: {}, text: '', error: error ?? 'closed without an answer' },
      );
    };
    const timer = setTimeout(() => finish(`no answer in ${RAW_TIMEOUT_MS} ms`), RAW_TIMEOUT_MS);
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      // One answer is all a case reads (a second "request" may follow a short Content-Length).
      if (parseResponse(Buffer.concat(chunks), true)) finish();
    });
    socket.on('error', (e) => finish(String(e)));
    socket.on('close', () => finish());
    socket.on('connect', () => {
      socket.write(rawBytes(port, req));
      // A body shorter than its length: the client gives up and closes its side.
      if (req.trick === 'short-body') socket.end();
    });
  });
}

/**
 * The first HTTP answer in `data`, or null. `complete`: only when its body
 * is all there (by Content-Length or the last chunk).
 */
export function parseResponse(data: Buffer, complete = false): Omit<WireResponse, 'ms'> | null {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const head = data.subarray(0, end).toString('latin1').split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? '');
  if (!m) return null;
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  let body = data.subarray(end + 4);
  if (headers['transfer-encoding']?.includes('chunked')) {
    const parts: Buffer[] = [];
    let at = 0;
    let last = false;
    for (;;) {
      const eol = body.indexOf('\r\n', at);
      if (eol < 0) break;
      const size = parseInt(body.subarray(at, eol).toString('latin1'), 16);
      if (!Number.isFinite(size)) break;
      if (size === 0) {
        last = true;
        break;
      }
      if (eol + 2 + size > body.length) break;
      parts.push(body.subarray(eol + 2, eol + 2 + size));
      at = eol + 2 + size + 2;
    }
    if (complete && !last) return null;
    body = Buffer.concat(parts);
  } else if (headers['content-length'] !== undefined) {
    const n = Number(headers['content-length']);
    if (complete && body.length < n) return null;
    body = body.subarray(0, n);
  } else if (complete) {
    return null;
  }
  return { status: Number(m[1]), headers, text: body.toString('utf8') };
}
