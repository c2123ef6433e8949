// The `keepgraph` command as an npm package a stranger installs (`npm i -g
// keepgraph`, `npx keepgraph start`): the CLI and every workspace package it
// reaches are bundled into dist/ as built JavaScript (scripts/bundle-cli.ts:
// ES modules split by command, so `--help` loads no server); the npm
// packages they import stay external and become the package's dependencies;
// the files the code reads beside itself (SQL queries, migrations, the
// default policy, model configs, the UI's build, the model worker) are
// copied under assets/ and found there.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleCli } from '../bundle-cli.ts';
import { externalPackages, pinned, root, type Manifest } from './workspace.ts';

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

export async function packKeepgraph(opts: {
  out: string;
  manifests: Map<string, Manifest>;
  versions: Map<string, string>;
}): Promise<string> {
  const cli = opts.manifests.get('packages/cli')!;
  const STAGE = join(opts.out, 'keepgraph');
  rmSync(STAGE, { recursive: true, force: true });
  mkdirSync(STAGE, { recursive: true });
  if (!existsSync(join(root, 'packages/ui/dist/index.html')))
    throw new Error('packages/ui/dist is missing: run `pnpm build:ui` first');

  const result = await bundleCli(join(STAGE, 'dist'), { for: 'package', version: cli.version });

  for (const a of ASSETS) cpSync(join(root, a), join(STAGE, 'assets', a), { recursive: true });

  // Each external package at the version the workspace resolved for it (its
  // lockfile's): a command is an application, so a stranger gets the
  // versions its tests ran with, not whatever a range allows today. The
  // model worker is loaded by path, not imported: its imports count too.
  const dependencies = pinned(
    new Set([...externalPackages(result.metafile), '@huggingface/transformers']),
    opts.versions,
    'the keepgraph bundle',
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
    dependencies,
  };
  writeFileSync(join(STAGE, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  cpSync(join(root, 'packages/cli/README.md'), join(STAGE, 'README.md'));
  execFileSync('pnpm', ['pack', '--pack-destination', opts.out], {
    cwd: STAGE,
    stdio: 'ignore',
  });
  return join(opts.out, `keepgraph-${cli.version}.tgz`);
}
