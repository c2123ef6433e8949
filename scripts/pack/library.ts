// A library package a stranger installs (`npm i @keepgraph/client`): its
// source bundled into one ES module with esbuild (the workspace code it
// reaches included; type-only imports of @keepgraph/core vanish, so nothing
// of the engine loads at run time), for any platform (no Node built-ins: the
// client runs in browsers too); its declaration files beside it
// (declarations.ts); its npm imports as dependencies, caret ranges from the
// versions the workspace resolved (a library shares them with its user's
// tree). The README is the package folder's.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { collectDeclarations } from './declarations.ts';
import { externalPackages, packageOf, pinned, root, type Manifest } from './workspace.ts';

/** npm packages, and the workspace packages depended on by name, stay imports; other workspace code is bundled. */
function externals(byName: ReadonlySet<string>): Plugin {
  return {
    name: 'library-externals',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) =>
        args.kind === 'entry-point' ||
        (args.path.startsWith('@keepgraph/') && !byName.has(packageOf(args.path)))
          ? undefined
          : { path: args.path, external: true },
      );
    },
  };
}

/** Pack the workspace package in `dir` (relative to the root) into `out`; answers the tarball's path. */
export async function packLibrary(opts: {
  dir: string;
  out: string;
  manifests: Map<string, Manifest>;
  versions: Map<string, string>;
  /** Where emitDeclarations wrote the workspace's declaration files. */
  emitted: string;
}): Promise<string> {
  const m = opts.manifests.get(opts.dir);
  if (!m) throw new Error(`${opts.dir} is not a workspace package`);
  const stage = join(opts.out, basename(opts.dir));
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });

  const workspaceVersion = new Map(
    [...opts.manifests.values()].map((w) => [w.name, w.version] as const),
  );
  // The workspace packages this one depends on at run time are published too:
  // it imports them by name, at their exact version.
  const byName = new Set(
    Object.entries(m.dependencies ?? {})
      .filter(([, range]) => range.startsWith('workspace:'))
      .map(([name]) => name),
  );
  const entry = join(opts.dir, 'src/index.ts');
  const result = await build({
    entryPoints: [join(root, entry)],
    outfile: join(stage, 'dist/index.js'),
    bundle: true,
    platform: 'neutral',
    format: 'esm',
    target: 'es2022',
    plugins: [externals(byName)],
    metafile: true,
    logLevel: 'warning',
  });
  const { types, npm } = collectDeclarations({
    emitted: opts.emitted,
    entry,
    stage,
    manifests: opts.manifests,
    byName,
  });

  const imported = externalPackages(result.metafile);
  const npmPackages = [...imported, ...npm].filter((n) => !byName.has(n));
  const dependencies = Object.fromEntries(
    Object.entries({
      ...pinned(new Set(npmPackages), opts.versions, m.name, (v) => `^${v}`),
      ...pinned(byName, workspaceVersion, m.name),
    }).sort(([a], [b]) => a.localeCompare(b)),
  );

  const manifest = {
    name: m.name,
    version: m.version,
    description: m.description,
    // No licence has been chosen for KeepGraph yet: the field says so.
    license: 'UNLICENSED',
    type: 'module',
    exports: { '.': { types, import: './dist/index.js' } },
    types,
    sideEffects: false,
    engines: { node: '>=20' },
    files: ['dist', 'types', 'README.md'],
    dependencies,
  };
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const readme = join(root, opts.dir, 'README.md');
  if (!existsSync(readme)) throw new Error(`${opts.dir} has no README.md`);
  cpSync(readme, join(stage, 'README.md'));
  execFileSync('pnpm', ['pack', '--pack-destination', opts.out], { cwd: stage, stdio: 'ignore' });
  const file = `${m.name.replace(/^@/, '').replace('/', '-')}-${m.version}.tgz`;
  return join(opts.out, file);
}
