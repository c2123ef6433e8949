// How the `keepgraph` command is built into JavaScript, in one place: for the
// npm package (scripts/pack.ts) and for the test that holds its start-up
// imports down (packages/cli/test/startup-imports.test.ts). The CLI and every
// workspace package it reaches are bundled as ES modules split into chunks
// (each command's dependencies load with the command); npm packages stay
// imports, resolved by the installer; each workspace module's import.meta
// points at its copy under the package's assets/.
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { build, type Metafile, type Plugin } from 'esbuild';

const root = resolve(import.meta.dirname, '..');

/** Every npm package stays an import; workspace packages are not npm packages, so they are bundled. */
const externalNpmPackages: Plugin = {
  name: 'external-npm-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.kind === 'entry-point' || args.path.startsWith('@keepgraph/')
        ? undefined
        : { path: args.path, external: true },
    );
  },
};

/**
 * A workspace module's `import.meta.url` (and `.dirname`, `.filename`)
 * point at its copy under assets/, where the files it reads beside itself
 * are: the bundle's chunks sit in dist/, one folder down from assets/.
 */
const assetImportMeta: Plugin = {
  name: 'asset-import-meta',
  setup(b) {
    b.onLoad({ filter: /\.(ts|tsx|mts|mjs|js)$/ }, (args) => {
      if (args.path.includes('/node_modules/')) return undefined;
      const source = readFileSync(args.path, 'utf8');
      // The entry's own hashbang runs tsx; the banner gives the built one.
      const text = source.replace(/^#!.*\n/, '');
      if (text === source && !text.includes('import.meta')) return undefined;
      const rel = relative(root, args.path);
      const url = `new URL(${JSON.stringify(`../assets/${rel}`)}, import.meta.url)`;
      const contents = text
        .replaceAll('import.meta.url', `${url}.href`)
        .replaceAll('import.meta.dirname', `__kgDirname(${url})`)
        .replaceAll('import.meta.filename', `__kgFilename(${url})`);
      const loader = args.path.endsWith('.tsx') ? 'tsx' : args.path.endsWith('ts') ? 'ts' : 'js';
      return { contents, loader };
    });
  },
};

/**
 * Bundle packages/cli/src/main.ts into `outdir` (main.mjs and its chunks);
 * `write: false` only computes the outputs (their metafile).
 */
export async function bundleCli(
  outdir: string,
  opts: { version: string; write?: boolean },
): Promise<{ metafile: Metafile }> {
  return build({
    entryPoints: { main: join(root, 'packages/cli/src/main.ts') },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    plugins: [externalNpmPackages, assetImportMeta],
    banner: {
      js: [
        '#!/usr/bin/env node',
        "import { fileURLToPath as __kgPath } from 'node:url';",
        "import { dirname as __kgDir } from 'node:path';",
        'const __kgFilename = (u) => __kgPath(u);',
        'const __kgDirname = (u) => __kgDir(__kgPath(u));',
      ].join('\n'),
    },
    define: { 'process.env.KEEPGRAPH_PACKAGE_VERSION': JSON.stringify(opts.version) },
    write: opts.write ?? true,
    metafile: true,
    logLevel: 'warning',
  });
}
