// The `keepgraph` CLI as prebuilt ES modules, for the tests that spawn it.
// Through tsx, every spawn compiles the workspace's TypeScript again (about
// 1.4 s of two cores before the CLI does anything); the test run spawns
// servers, workers and one-shot commands by the hundred, so the global setup
// bundles the sources once per run (esbuild, well under a second) and the
// children run that. How it is bundled is scripts/bundle-cli.ts's 'tests'
// build: the workspace's own code only, npm packages and native addons and
// model files loaded as they are from the sources.
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { bundleCli } from '../scripts/bundle-cli.ts';

/** Where the run's bundle is written: its entry point, beside the chunks it loads. */
const OUT_DIR = resolve(import.meta.dirname, '..', '.tmp/keepgraph-cli');
export const CLI_BUNDLE = resolve(OUT_DIR, 'main.mjs');

/** Bundle packages/cli/src/main.ts into {@link CLI_BUNDLE}. */
export async function buildCliBundle(): Promise<string> {
  await rm(OUT_DIR, { recursive: true, force: true });
  await bundleCli(OUT_DIR, { for: 'tests' });
  return CLI_BUNDLE;
}
