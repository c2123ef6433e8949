// Clients that keep calling a running server, one owner each, through a
// round of routes (write, list, recall, a key-value put, a session append,
// forget, and any extra ones a case adds) until stopped, and a probe of
// /healthz every 250 ms. Every
// answer is kept with the time its request was sent, how long it took and
// its error code; every write and every forget with its outcome, for the
// checks after the outage.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KeepGraphProcess } from '../../e2e/keepgraph-process.ts';

/** A number spelt in letters: texts carry no digit run a personal-data detector could read. */
export const spelt = (n: number): string =>
  [...n.toString(16)].map((d) => String.fromCharCode(97 + parseInt(d, 16))).join('');

const THINGS = ['blue kettle', 'garden gate', 'spare key', 'old bicycle', 'red notebook'];
const PLACES = ['back porch', 'kitchen shelf', 'attic', 'garage', 'front hall'];

/** How long a client waits for any answer before it counts the request as unanswered. */
const ANSWER_TIMEOUT_MS = 60_000;

export interface Answer {
  /** The route, as `METHOD /pattern`. */
  route: string;
  /** When the request was sent and when its answer (or the failure) came, ms since the epoch. */
  sentAt: number;
  doneAt: number;
  /** The HTTP status, or 0 when no answer came (connection failure, timeout). */
  status: number;
  /** `error.code` of an error body. */
  code?: string;
  /** The Retry-After header, when the answer had one. */
  retryAfter?: string;
  /** What failed when no answer came. */
  failure?: string;
}

export interface WriteOutcome {
  owner: string;
  text: string;
  status: number;
  /** The memory's id, when the write was acknowledged. */
  id?: string;
}

export interface ForgetOutcome {
  owner: string;
  id: string;
  status: number;
}

/** A route a case adds to every client's round (e.g. the queue figures, that need Redis). */
export interface ExtraRoute {
  method: string;
  path: string;
  /** false: sent without a credential (public paths). */
  auth?: boolean;
}

/** An extra route as the answers name it: `METHOD /path`. */
export const extraRouteName = (x: ExtraRoute): string => `${x.method} ${x.path}`;

export interface LoadOptions {
  kg: KeepGraphProcess;
  owners: readonly string[];
  /** Memory kind of the writes (episodes record reflection jobs in the outbox). */
  kind: 'fact' | 'episode';
  /** Per owner, memories written before the load, which its forgets take one by one. */
  toForget: ReadonlyMap<string, string[]>;
  extra?: readonly ExtraRoute[];
  /** Words in every text, to tell this case's writes apart. */
  label: string;
}

export class OutageLoad {
  readonly answers: Answer[] = [];
  readonly writes: WriteOutcome[] = [];
  readonly forgets: ForgetOutcome[] = [];
  #stopped = false;
  #running: Promise<void> | null = null;
  #n = 0;

  constructor(private readonly opts: LoadOptions) {}

  start(): void {
    this.#running = Promise.all([
      ...this.opts.owners.map((o) => this.#client(o)),
      this.#probe(),
      ...(this.opts.extra ?? []).map((x) => this.#probeExtra(x)),
    ]).then(() => {});
  }

  /** /healthz every 250 ms, whatever the clients wait for: whether the process still answers at once. */
  async #probe(): Promise<void> {
    while (!this.#stopped) {
      await this.#call('GET /healthz', 'GET', '/healthz', undefined, false);
      await sleep(250);
    }
  }

  /**
   * Each extra route every 250 ms, beside the clients: the routes that
   * depend on the case's dependency alone. At the end of each client's
   * round, a slow round under a busy machine sent none while Redis was away
   * (four clients sent 45 requests in its 10 s, none of them to a queue).
   */
  async #probeExtra(x: ExtraRoute): Promise<void> {
    while (!this.#stopped) {
      await this.#call(extraRouteName(x), x.method, x.path, undefined, x.auth ?? true);
      await sleep(250);
    }
  }

  /** Stop after the requests in flight; resolves once every client has stopped. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#running;
  }

  async #call(
    route: string,
    method: string,
    path: string,
    body?: unknown,
    auth = true,
  ): Promise<{ status: number; json: Record<string, unknown> | null }> {
    const sentAt = Date.now();
    try {
      const r = await fetch(`${this.opts.kg.base}${path}`, {
        method,
        headers: {
          ...(auth && { authorization: `Bearer ${this.opts.kg.operatorKey}` }),
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
      });
      const text = await r.text();
      let json: Record<string, unknown> | null = null;
      try {
        json = JSON.parse(text) as Record<string, unknown>;
      } catch {
        // Not JSON (a page of the dashboard): only the status counts.
      }
      const error = json?.error as { code?: unknown } | undefined;
      const retryAfter = r.headers.get('retry-after');
      this.answers.push({
        route,
        sentAt,
        doneAt: Date.now(),
        status: r.status,
        ...(typeof error?.code === 'string' && { code: error.code }),
        ...(retryAfter !== null && { retryAfter }),
      });
      return { status: r.status, json };
    } catch (e) {
      const cause = (e as { cause?: unknown }).cause;
      this.answers.push({
        route,
        sentAt,
        doneAt: Date.now(),
        status: 0,
        failure: `${(e as Error).message}${cause ? `: ${String(cause)}` : ''}`,
      });
      return { status: 0, json: null };
    }
  }

  async #client(owner: string): Promise<void> {
    const v1 = `/v1/owners/${owner}`;
    const toForget = [...(this.opts.toForget.get(owner) ?? [])];
    while (!this.#stopped) {
      const i = this.#n++;
      const text = `${this.opts.label} note ${spelt(i)}: the ${THINGS[i % THINGS.length]} is by the ${PLACES[i % PLACES.length]}`;
      const w = await this.#call('POST /owners/:o/memories', 'POST', `${v1}/memories`, {
        kind: this.opts.kind,
        text,
        origin: { sessionId: `outage-${spelt(i % 7)}` },
      });
      const memory = w.json?.memory as { id?: string } | undefined;
      this.writes.push({
        owner,
        text,
        status: w.status,
        ...(w.status === 201 && memory?.id !== undefined && { id: memory.id }),
      });
      await this.#call('GET /owners/:o/memories', 'GET', `${v1}/memories?limit=20`);
      await this.#call('POST /owners/:o/recall', 'POST', `${v1}/recall`, {
        query: `where is the ${THINGS[i % THINGS.length]}`,
      });
      await this.#call('PUT /owners/:o/kv/:key', 'PUT', `${v1}/kv/favourite-place`, {
        text: `The favourite place of the user is the ${PLACES[i % PLACES.length]}`,
        origin: { sessionId: 'outage-kv' },
      });
      await this.#call(
        'POST /owners/:o/sessions/:s/messages',
        'POST',
        `${v1}/sessions/outage-chat/messages`,
        {
          messages: [{ role: 'user', text: `Where did I leave the ${THINGS[i % THINGS.length]}?` }],
        },
      );
      const id = toForget.shift();
      if (id !== undefined) {
        const f = await this.#call(
          'DELETE /owners/:o/memories/:id',
          'DELETE',
          `${v1}/memories/${id}`,
        );
        this.forgets.push({ owner, id, status: f.status });
      }
    }
  }
}

/** Owner ids for one case: letters and a random part. */
export function outageOwners(label: string, n: number): string[] {
  return Array.from({ length: n }, () => `outage-${label}-${randomUUID()}`);
}

/** Statuses counted: `{ "201": 12, "503": 40 }`. */
export function histogram(answers: readonly Answer[]): Record<string, number> {
  const h: Record<string, number> = {};
  for (const a of answers) h[String(a.status)] = (h[String(a.status)] ?? 0) + 1;
  return Object.fromEntries(Object.entries(h).sort(([a], [b]) => Number(a) - Number(b)));
}
