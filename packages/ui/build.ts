// Builds the provenance explorer into dist/ (run at install time by the
// root postinstall, and by `pnpm --filter @keepgraph/ui build`): one ES
// module bundle for the browser (Preact, sigma.js, graphology, uPlot), its
// CSS, and index.html. `keepgraph start` serves dist/ at /ui.
import { build } from 'esbuild';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

const here = import.meta.dirname;
const dist = join(here, 'dist');

await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });
const result = await build({
  entryPoints: [join(here, 'src/main.tsx')],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: true,
  sourcemap: true,
  outfile: join(dist, 'app.js'),
  metafile: true,
  logLevel: 'warning',
});
await copyFile(join(here, 'src/index.html'), join(dist, 'index.html'));
const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
console.log(`ui: built ${dist} (${Math.round(bytes / 1024)} KiB)`);
