// How the `keepgraph` command is built into JavaScript, in one place, for its
// two ends:
// - 'package': the npm package (scripts/pack.ts) and the test that holds its
//   start-up imports down (packages/cli/test/startup-imports.test.ts). npm
//   packages stay bare imports, resolved by the installer; each workspace
//   module's import.meta points at its copy under the package's assets/.
// - 'tests': the run's bundle that the tests spawn (test/cli-bundle.ts). npm
//   packages are imported by the absolute path they resolve to from the file
//   that imports them (pnpm gives each package its own dependencies, so a
//   bare name would not resolve from the bundle's folder); each workspace
//   module's import.meta stays its source file's.
// Either way the CLI and every workspace package it reaches are bundled as ES
// modules split into chunks: as one file, every npm package the server, the
// workers and the runtime import would load at start (an ES module's imports
// are static); in chunks, each loads with the command that needs it.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile, type OnResolveArgs, type Plugin, type PluginBuild } from 'esbuild';

const root = resolve(import.meta.dirname, '..');

export type BundleFor = 'package' | 'tests';

const RESOLVING = Symbol('resolving');

/**
 * Every npm package stays an import (workspace packages are not npm
 * packages, so they are bundled): by its bare name for the package, by the
 * absolute path Node would load it from for the tests.
 */
function externalNpmPackages(bundleFor: BundleFor): Plugin {
  const byPath = async (b: PluginBuild, path: string, args: OnResolveArgs) => {
    // esbuild's own resolution, with the conditions an ES module import
    // uses in Node ("import", "node"), from the importing file's folder.
    const found = await b.resolve(path, {
      kind: args.kind,
      resolveDir: args.resolveDir,
      importer: args.importer,
      pluginData: RESOLVING,
    });
    if (found.errors.length > 0 || found.external || !found.path.startsWith('/'))
      return { path, external: true };
    return { path: pathToFileURL(found.path).href, external: true };
  };
  return {
    name: 'external-npm-packages',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.pluginData === RESOLVING) return undefined;
        if (args.kind === 'entry-point' || args.path.startsWith('@keepgraph/')) return undefined;
        return bundleFor === 'tests'
          ? byPath(b, args.path, args)
          : { path: args.path, external: true };
      });
    },
  };
}

/**
 * A workspace module's `import.meta.url` (and `.dirname`, `.filename`),
 * rewritten: for the package, to its copy under assets/, where the files it
 * reads beside itself are (the bundle's chunks sit in dist/, one folder down
 * from assets/); for the tests, to its source file.
 */
function workspaceImportMeta(bundleFor: BundleFor): Plugin {
  const meta = (path: string) => {
    if (bundleFor === 'tests')
      return {
        url: JSON.stringify(pathToFileURL(path).href),
        dirname: JSON.stringify(dirname(path)),
        filename: JSON.stringify(path),
      };
    const url = `new URL(${JSON.stringify(`../assets/${relative(root, path)}`)}, import.meta.url)`;
    return { url: `${url}.href`, dirname: `__kgDirname(${url})`, filename: `__kgFilename(${url})` };
  };
  return {
    name: 'workspace-import-meta',
    setup(b) {
      b.onLoad({ filter: /\.(ts|tsx|mts|mjs|js)$/ }, (args) => {
        if (args.path.includes('/node_modules/')) return undefined;
        const source = readFileSync(args.path, 'utf8');
        // The entry's own hashbang runs tsx; the package's banner gives the
        // built one (the tests run the bundle with node).
        const text = source.replace(/^#!.*\n/, '');
        if (text === source && !text.includes('import.meta')) return undefined;
        const m = meta(args.path);
        const contents = text
          .replaceAll('import.meta.url', m.url)
          .replaceAll('import.meta.dirname', m.dirname)
          .replaceAll('import.meta.filename', m.filename);
        const loader = args.path.endsWith('.tsx') ? 'tsx' : args.path.endsWith('ts') ? 'ts' : 'js';
        return { contents, loader };
      });
    },
  };
}

/** The package's bundle starts as a command, with the helpers its import.meta rewrite calls. */
const PACKAGE_BANNER = [
  '#!/usr/bin/env node',
  "import { fileURLToPath as __kgPath } from 'node:url';",
  "import { dirname as __kgDir } from 'node:path';",
  'const __kgFilename = (u) => __kgPath(u);',
  'const __kgDirname = (u) => __kgDir(__kgPath(u));',
].join('\n');

/**
 * Bundle packages/cli/src/main.ts into `outdir` (main.mjs and its chunks);
 * `write: false` only computes the outputs (their metafile). The package's
 * bundle has its version compiled in; the tests' has source lines in stack
 * traces, as tsx gives them.
 */
export async function bundleCli(
  outdir: string,
  opts: { for: BundleFor; version?: string; write?: boolean },
): Promise<{ metafile: Metafile }> {
  const forPackage = opts.for === 'package';
  return build({
    entryPoints: { main: join(root, 'packages/cli/src/main.ts') },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    plugins: [externalNpmPackages(opts.for), workspaceImportMeta(opts.for)],
    ...(forPackage
      ? {
          banner: { js: PACKAGE_BANNER },
          define: {
            'process.env.KEEPGRAPH_PACKAGE_VERSION': JSON.stringify(opts.version ?? '0.0.0'),
          },
        }
      : { sourcemap: 'inline' as const }),
    write: opts.write ?? true,
    metafile: true,
    logLevel: 'warning',
  });
}
