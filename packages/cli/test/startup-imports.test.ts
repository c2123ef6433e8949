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

it('the built CLI loads only commander, zod and unhomoglyph before a command runs', async () => {
  const { metafile } = await bundleCli('dist', { for: 'package', version: 'test', write: false });
  const outputs = metafile.outputs;
  const main = Object.keys(outputs).find((o) => o.endsWith('main.mjs'))!;
  const seen = new Set<string>();
  const packages = new Set<string>();
  const queue = [main];
  while (queue.length > 0) {
    const out = queue.pop()!;
    if (seen.has(out)) continue;
    seen.add(out);
    for (const imp of outputs[out]!.imports) {
      if (imp.kind !== 'import-statement') continue;
      if (!imp.external) queue.push(imp.path);
      else if (!imp.path.startsWith('node:')) packages.add(packageOf(imp.path));
    }
  }
  expect([...packages].sort()).toEqual(AT_START);
});
