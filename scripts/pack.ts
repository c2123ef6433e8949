// pnpm pack:keepgraph — the `keepgraph` command as an npm package a stranger
// installs (`npm i -g keepgraph`, `npx keepgraph start`), made from this
// workspace: the CLI and every workspace package it reaches are bundled into
// dist/ as built JavaScript (esbuild, ES modules split by command, so
// `--help` loads no server); the npm packages they import stay external and
// become the package's dependencies, with the ranges the workspace's
// manifests declare; the files the code reads beside itself (SQL queries,
// migrations, the default policy, model configs, the UI's build, the model
// worker) are copied under assets/ and found there. The tarball lands in
// .tmp/packs/ (`--out DIR` for another folder).
//
// The workspace's own tests run against the sources; test/e2e/installed.test.ts
// installs this tarball with plain npm into an empty folder and runs it.
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Metafile } from 'esbuild';
import { bundleCli } from './bundle-cli.ts';

const root = resolve(import.meta.dirname, '..');
const { values } = parseArgs({ options: { out: { type: 'string' } } });
const OUT = resolve(values.out ?? join(root, '.tmp/packs'));
const STAGE = join(OUT, 'keepgraph');

/** Files and folders the bundled code reads next to its source, relative to the repo root. */
const ASSETS = [
  'graph-schema/sqlite',
  'graph-schema/neo4j',
  'packages/core/policy/default.yaml',
  'packages/embedder/model-configs',
  'packages/embedder/src/model-worker.mjs',
  'packages/store-sqlite/src/queries',
  'packages/store-neo4j/src/queries',
  'packages/ui/dist',
];

interface Manifest {
  name: string;
  version: string;
  description?: string;
  dependencies?: Record<string, string>;
}
const readManifest = (p: string) => JSON.parse(readFileSync(p, 'utf8')) as Manifest;

/**
 * Every workspace package's manifest, by its folder (relative to the root):
 * the folders pnpm-workspace.yaml lists (`dir/*`: each folder in dir). Read
 * from the files, not from git, so that it works where the tree has no
 * repository (an image build's context).
 */
function workspaceManifests(): Map<string, Manifest> {
  const patterns = [
    ...readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8').matchAll(/^\s*-\s*(\S+)\s*$/gm),
  ].map((m) => m[1]!.replace(/^['"]|['"]$/g, ''));
  const dirs = patterns.flatMap((p) =>
    p.endsWith('/*')
      ? readdirSync(join(root, p.slice(0, -2)), { withFileTypes: true })
          .filter((d) => d.isDirectory())
          .map((d) => `${p.slice(0, -2)}/${d.name}`)
      : [p],
  );
  return new Map(
    dirs
      .filter((d) => existsSync(join(root, d, 'package.json')))
      .map((d) => [d, readManifest(join(root, d, 'package.json'))]),
  );
}

/** The npm packages a bundle imports: the package name of each external import. */
function externalPackages(meta: Metafile): Set<string> {
  const names = new Set<string>();
  for (const out of Object.values(meta.outputs))
    for (const imp of out.imports) {
      if (!imp.external || imp.path.startsWith('node:') || imp.path.startsWith('.')) continue;
      const parts = imp.path.split('/');
      names.add(imp.path.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!);
    }
  return names;
}

async function packKeepgraph(): Promise<string> {
  const manifests = workspaceManifests();
  const cli = manifests.get('packages/cli')!;
  rmSync(STAGE, { recursive: true, force: true });
  mkdirSync(STAGE, { recursive: true });
  if (!existsSync(join(root, 'packages/ui/dist/index.html')))
    throw new Error('packages/ui/dist is missing: run `pnpm build:ui` first');

  const result = await bundleCli(join(STAGE, 'dist'), { version: cli.version });

  for (const a of ASSETS) cpSync(join(root, a), join(STAGE, 'assets', a), { recursive: true });

  // Each external package at the version the workspace resolved for it (its
  // lockfile's): a command is an application, so a stranger gets the
  // versions its tests ran with, not whatever a range allows today.
  const resolved = new Map<string, string>();
  for (const [dir, m] of manifests)
    for (const [dep, range] of Object.entries(m.dependencies ?? {})) {
      if (range.startsWith('workspace:') || resolved.has(dep)) continue;
      const installed = join(root, dir, 'node_modules', dep, 'package.json');
      resolved.set(dep, readManifest(installed).version);
    }
  const dependencies: Record<string, string> = {};
  // The model worker is loaded by path, not imported: its imports count too.
  for (const name of [...externalPackages(result.metafile), '@huggingface/transformers']) {
    const version = resolved.get(name);
    if (!version)
      throw new Error(`the bundle imports ${name}, which no workspace manifest declares`);
    dependencies[name] = version;
  }
  const sortedDependencies = Object.fromEntries(
    Object.entries(dependencies).sort(([a], [b]) => a.localeCompare(b)),
  );

  const manifest = {
    name: 'keepgraph',
    version: cli.version,
    description: cli.description,
    // No licence has been chosen for KeepGraph yet: the field says so.
    license: 'UNLICENSED',
    type: 'module',
    bin: { keepgraph: 'dist/main.mjs' },
    engines: { node: '>=20.19' },
    files: ['dist', 'assets', 'README.md'],
    dependencies: sortedDependencies,
  };
  writeFileSync(join(STAGE, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  cpSync(join(root, 'packages/cli/README.md'), join(STAGE, 'README.md'));
  execFileSync('pnpm', ['pack', '--pack-destination', OUT], { cwd: STAGE, stdio: 'ignore' });
  return join(OUT, `keepgraph-${cli.version}.tgz`);
}

mkdirSync(dirname(STAGE), { recursive: true });
const tarball = await packKeepgraph();
console.log(tarball);
