// How the tests run the `keepgraph` CLI in a child process (a server, a
// worker, a one-shot command), in one place: the command line (the run's
// bundle of the CLI, see test/cli-bundle.ts), and the environment it gets.
//
// The embedder: unless a test names a model (KEEPGRAPH_MODEL in its env), a
// spawned process embeds with the deterministic hashing embedder. Tests that
// spawn servers check policy, auth, APIs, crashes, fuzzing and deletion,
// whose assertions do not depend on what a text means; loading the ONNX
// model and embedding with it would only cost time. Retrieval, reflection
// and compaction tests keep the real model (they name it, or run in process).
import { resolve } from 'node:path';
import { inject } from 'vitest';
import { HASHING_MODEL_ID } from '@keepgraph/embedder';

const root = resolve(import.meta.dirname, '..');

/** The CLI's entry point. */
export const CLI_MAIN = resolve(root, 'packages/cli/src/main.ts');

/**
 * The arguments of `node` that run `keepgraph ARGS…`: the run's prebuilt
 * bundle of the CLI (test/cli-bundle.ts), or the sources through tsx when
 * the run made none (KEEPGRAPH_TEST_CLI=tsx).
 */
export function keepgraphArgv(...args: string[]): string[] {
  const bundle = inject('cliBundle');
  return bundle ? [bundle, ...args] : ['--import', 'tsx', CLI_MAIN, ...args];
}

/** The embedder a spawned keepgraph uses unless the test says otherwise. */
export const TEST_MODEL_ENV = { KEEPGRAPH_MODEL: HASHING_MODEL_ID } as const;

/** This process's environment, the test embedder, then `env` (which wins). */
export function keepgraphEnv(env: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...TEST_MODEL_ENV, ...env };
}
