// `keepgraph --help`, a usage error and the command tree load only what
// building the program needs; each command loads its implementation (the
// runtime and its stores, the workers, the MCP server, core's policy gate
// and ranking) in its action, with `await import(...)`. Checked on the
// bundle as scripts/pack.ts builds it (ES modules split into chunks): the npm
// packages main.mjs reaches through static imports, chunk by chunk, load at
// every start.
import { expect, it } from 'vitest';
import { bundleCli } from '../../../scripts/bundle-cli.ts';

/**
 * What building the program loads: commander; zod, for core's registry
 * (the exposed commands and the MCP tools are derived from its rows, whose
 * arguments are zod schemas); unhomoglyph, for the MCP tool table's
 * renderings (`keepgraph mcp` declares the use-cases of its tools).
 */
const AT_START = ['commander', 'unhomoglyph', 'zod'];

const packageOf = (spec: string) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');

type Outputs = Awaited<ReturnType<typeof bundleCli>>['metafile']['outputs'];

/** The npm import specifiers `from`'s chunk loads through static imports, chunk by chunk. */
function staticallyLoaded(outputs: Outputs, from: string): Set<string> {
  const seen = new Set<string>();
  const specifiers = new Set<string>();
  const queue = [from];
  while (queue.length > 0) {
    const out = queue.pop()!;
    if (seen.has(out)) continue;
    seen.add(out);
    for (const imp of outputs[out]!.imports) {
      if (imp.kind !== 'import-statement') continue;
      if (!imp.external) queue.push(imp.path);
      else if (!imp.path.startsWith('node:')) specifiers.add(imp.path);
    }
  }
  return specifiers;
}

/** The bundle as scripts/pack.ts builds it, in memory; built once for both tests. */
let bundle: ReturnType<typeof bundleCli> | undefined;
const built = () =>
  (bundle ??= bundleCli('dist', { for: 'package', version: 'test', write: false }));

it('the built CLI loads only commander, zod and unhomoglyph before a command runs', async () => {
  const { outputs } = (await built()).metafile;
  const main = Object.keys(outputs).find((o) => o.endsWith('main.mjs'))!;
  const packages = new Set([...staticallyLoaded(outputs, main)].map(packageOf));
  expect([...packages].sort()).toEqual(AT_START);
});

// A one-shot command on the embedded default (remember, recall...) opens
// the runtime: it must not load what only Neo4j or server mode use (the
// driver and rxjs, BullMQ and ioredis: 1.5 s -> 0.9 s for a `remember`),
// nor chrono-node's every locale (its root: 266 modules, a quarter second).
it('opening the runtime loads no Neo4j driver, no BullMQ, and chrono-node in English only', async () => {
  const { outputs } = (await built()).metafile;
  const runtime = Object.keys(outputs).find((o) =>
    Object.keys(outputs[o]!.inputs).some((i) => i.endsWith('packages/runtime/src/runtime.ts')),
  )!;
  expect(runtime).toBeDefined();
  const loaded = [...staticallyLoaded(outputs, runtime)];
  expect(loaded).toContain('better-sqlite3');
  for (const serverOnly of ['neo4j-driver', 'bullmq', 'ioredis'])
    expect(loaded.map(packageOf)).not.toContain(serverOnly);
  expect(loaded.filter((s) => packageOf(s) === 'chrono-node')).toEqual(['chrono-node/en']);
});
