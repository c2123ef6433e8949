// The `keepgraph` CLI as one prebuilt ES module, for the tests that spawn it.
// Through tsx, every spawn compiles the workspace's TypeScript again (about
// 1.4 s of two cores before the CLI does anything); the test run spawns
// servers, workers and one-shot commands by the hundred, so the global setup
// bundles the sources once per run (esbuild, well under a second) and the
// children run that.
//
// The bundle holds the workspace's own code only. Every npm package stays
// external, imported by the absolute path it resolves to from the file that
// imports it (pnpm gives each package its own dependencies, so a bare name
// would not resolve from the bundle's folder), and native addons and model
// files load as they do from the sources. Workspace files that find things
// next to themselves (`new URL('./queries/', import.meta.url)`) keep doing
// so: their `import.meta` is rewritten to their own source location.
import { readFile, rm } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const root = resolve(import.meta.dirname, '..');

/** Where the run's bundle is written: its entry point, beside the chunks it loads. */
const OUT_DIR = resolve(root, '.tmp/keepgraph-cli');
export const CLI_BUNDLE = resolve(OUT_DIR, 'main.mjs');

const WORKSPACE_PREFIX = '@keepgraph/';

/** Bare npm imports: external, by the absolute path Node would load them from. */
const externalPackages: Plugin = {
  name: 'external-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === RESOLVING) return undefined;
      if (args.path.startsWith(WORKSPACE_PREFIX) || args.kind === 'entry-point') return undefined;
      // esbuild's own resolution, with the conditions an ES module import
      // uses in Node ("import", "node"), from the importing file's folder.
      const found = await b.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: RESOLVING,
      });
      if (found.errors.length > 0 || found.external || !found.path.startsWith('/'))
        return { path: args.path, external: true };
      return { path: pathToFileURL(found.path).href, external: true };
    });
  },
};
const RESOLVING = Symbol('resolving');

/** A workspace module's `import.meta.url`, `.dirname` and `.filename` stay its source file's. */
const sourceImportMeta: Plugin = {
  name: 'source-import-meta',
  setup(b) {
    b.onLoad({ filter: /\.(ts|tsx|mts|mjs|js)$/ }, async (args) => {
      if (args.path.includes('/node_modules/')) return undefined;
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta')) return undefined;
      const contents = text
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)))
        .replaceAll('import.meta.filename', JSON.stringify(args.path));
      const loader = args.path.endsWith('.tsx') ? 'tsx' : args.path.endsWith('ts') ? 'ts' : 'js';
      return { contents, loader };
    });
  },
};

/** Bundle packages/cli/src/main.ts into {@link CLI_BUNDLE}. */
export async function buildCliBundle(): Promise<string> {
  await rm(OUT_DIR, { recursive: true, force: true });
  await build({
    entryPoints: { main: resolve(root, 'packages/cli/src/main.ts') },
    outdir: OUT_DIR,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    // The CLI imports the server, the workers and the runtime only in the
    // commands that need them; as one file, every npm package those import
    // would load at start (an ES module's imports are static). In chunks,
    // each loads with its command.
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Source lines in stack traces, as tsx gives them.
    sourcemap: 'inline',
    plugins: [externalPackages, sourceImportMeta],
    logLevel: 'warning',
  });
  return CLI_BUNDLE;
}
