// The app talks to the public API through the TypeScript client, as any
// other caller would: same routes, same errors, same scopes. Nothing here
// bypasses the engine's checks; an analyst key is refused a deletion by the
// server whatever the page shows.
import { createContext } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import { KeepGraphClient, isKeepGraphError, type Out } from '@keepgraph/client';
import type { QueueMetrics } from '@keepgraph/core/jobs';

export type Identity = Out<'whoami'>;

export interface Session {
  client: KeepGraphClient;
  /** For the operator's routes the client does not cover (GET /v1/queues, GET /metrics). */
  apiKey: string;
  who: Identity;
  /** The owner every view reads; null until one is chosen. */
  owner: string | null;
  setOwner(owner: string): void;
  signOut(): void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside a signed-in app');
  return s;
}

export function clientFor(apiKey: string): KeepGraphClient {
  // Same origin: the server that serves /ui answers /v1.
  return new KeepGraphClient({ baseUrl: location.origin, apiKey, retries: 1 });
}

/** Whether the identity's role may delete (forget, revoke): the authorization table's DELETERS. */
export function mayDelete(who: Identity): boolean {
  return who.role === 'operator' || who.role === 'user' || who.role === 'agent';
}

/** A failed call as one line a person can act on. */
export function describeError(e: unknown): string {
  if (isKeepGraphError(e)) return `${e.message} (${e.code}${e.status ? `, HTTP ${e.status}` : ''})`;
  return e instanceof Error ? e.message : String(e);
}

export interface Loaded<T> {
  data: T | null;
  error: string | null;
  loading: boolean;
  reload(): void;
}

/**
 * Load once per change of `deps`; the latest answer wins when calls overlap.
 * A reload keeps showing the last answer until the new one arrives; a change
 * of `deps` (another owner) does not: another owner's figures are never shown
 * under this one's name, not even while loading.
 */
export function useLoad<T>(load: (() => Promise<T>) | null, deps: unknown[]): Loaded<T> {
  const key = JSON.stringify(deps);
  const [state, setState] = useState<{
    data: T | null;
    error: string | null;
    loading: boolean;
    key: string;
  }>({ data: null, error: null, loading: load !== null, key });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!load) {
      setState({ data: null, error: null, loading: false, key });
      return;
    }
    let live = true;
    setState((s) => ({ data: s.key === key ? s.data : null, error: null, loading: true, key }));
    load().then(
      (data) => live && setState({ data, error: null, loading: false, key }),
      (e: unknown) =>
        live && setState({ data: null, error: describeError(e), loading: false, key }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const current = state.key === key;
  return {
    data: current ? state.data : null,
    error: current ? state.error : null,
    loading: current ? state.loading : true,
    reload: () => setTick((t) => t + 1),
  };
}

/**
 * GET one of the operator's routes the client does not cover (GET
 * /v1/queues, GET /metrics) with the session's key; a refusal is thrown
 * with the server's message.
 */
export async function operatorGet(apiKey: string, path: string): Promise<Response> {
  const res = await fetch(path, { headers: { authorization: `Bearer ${apiKey}` } });
  if (res.ok) return res;
  const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
  throw new Error(body?.error?.message ?? `HTTP ${res.status}`);
}

export interface QueueFigures {
  /** False: the server runs without a job runner. */
  configured: boolean;
  queues: QueueMetrics[];
}

/** The job runner's figures (GET /v1/queues, operators only). */
export async function queueFigures(apiKey: string): Promise<QueueFigures> {
  return (await (await operatorGet(apiKey, '/v1/queues')).json()) as QueueFigures;
}
