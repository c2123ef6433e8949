// The HTTP server in the test process, for the e2e tests that drive it with
// real API keys through the real authentication: an embedded runtime over a
// fresh data directory on either store, and the app over its engine, with
// no rate limits (a test's bursts are not abuse). The caller readies the
// app (inject) or listens on a port (a real socket).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHashingEmbedder } from '@keepgraph/embedder';
import { openEmbeddedRuntime, type EmbeddedRuntime } from '@keepgraph/runtime';
import { buildApp } from '@keepgraph/server';
import { storeSelectionFor, type StoreName } from './stores.ts';

export interface InProcessServer {
  runtime: EmbeddedRuntime;
  app: ReturnType<typeof buildApp>;
  /** Closes the app and the runtime, and removes the data directory. */
  close(): Promise<void>;
}

/**
 * The runtime (hashing embedder, no sweep timer) over a temporary directory
 * named from `prefix`, and the app over it, not yet ready.
 */
export async function openInProcessServer(
  store: StoreName,
  prefix: string,
): Promise<InProcessServer> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  let runtime: EmbeddedRuntime | undefined;
  let app: ReturnType<typeof buildApp> | undefined;
  const close = async () => {
    await app?.close();
    await runtime?.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    runtime = await openEmbeddedRuntime({
      dataDir: dir,
      store: storeSelectionFor(store),
      // What these tests check does not depend on what a text means.
      embedder: createHashingEmbedder(384),
      sweepIntervalMs: null,
    });
    app = buildApp({
      engine: runtime.engine,
      auth: { rateLimitPerMinute: 0, authFailuresPerMinute: 0 },
    });
    return { runtime, app, close };
  } catch (e) {
    await close();
    throw e;
  }
}
