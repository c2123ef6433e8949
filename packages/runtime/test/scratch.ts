// What this package's store tests share: an operator caller, a small
// hashing embedder, and scratch directories and runtimes that are closed
// and removed after each test (call `cleanUp` from afterEach).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Caller } from '@keepgraph/core';
import { createHashingEmbedder } from '@keepgraph/embedder';
import {
  openEmbeddedRuntime,
  type EmbeddedRuntime,
  type EmbeddedRuntimeOptions,
} from '@keepgraph/runtime';

export const operator: Caller = { role: 'operator', owners: 'all', principal: 'tester' };
export const embedder = createHashingEmbedder(16);

const dirs: string[] = [];
const runtimes: EmbeddedRuntime[] = [];

/** A fresh directory named from `prefix`, removed by the next `cleanUp`. */
export async function scratchDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** A runtime over `dataDir` (the embedder above, no sweep timer), closed by the next `cleanUp`. */
export async function openScratch(
  dataDir: string,
  opts: Partial<EmbeddedRuntimeOptions> = {},
): Promise<EmbeddedRuntime> {
  const rt = await openEmbeddedRuntime({ dataDir, embedder, sweepIntervalMs: null, ...opts });
  runtimes.push(rt);
  return rt;
}

/** Close every runtime opened since the last call, then remove every directory. */
export async function cleanUp(): Promise<void> {
  for (const rt of runtimes.splice(0)) await rt.close();
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
}
