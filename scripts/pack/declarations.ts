// The type declarations a library package ships. tsc emits the declaration
// files of the workspace sources the libraries reach; each package then
// takes the files reachable from its entry point, with their imports
// rewritten for where they land: a relative `.ts` import to `.js` (what the
// emitted names are), a workspace package's to the relative path of its
// declaration file (the package carries the workspace types it needs, since
// those packages are not published beside it), unless it is one the package
// depends on by name; an npm package's kept, and reported, to become a
// dependency of the package.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { packageOf, root, type Manifest } from './workspace.ts';

/** Emit the declaration files of `include` (paths relative to the root) under `outDir`, laid out as the repo. */
export function emitDeclarations(include: string[], outDir: string): void {
  mkdirSync(outDir, { recursive: true });
  const config = join(outDir, 'tsconfig.json');
  const tsconfig = {
    extends: join(root, 'tsconfig.base.json'),
    compilerOptions: {
      noEmit: false,
      emitDeclarationOnly: true,
      declarationMap: false,
      sourceMap: false,
      // The config may live outside the tree (--out): types are the tree's.
      typeRoots: [join(root, 'node_modules/@types')],
      types: ['node'],
      rootDir: root,
      outDir: join(outDir, 'out'),
    },
    include: include.map((p) => join(root, p)),
  };
  writeFileSync(config, JSON.stringify(tsconfig, null, 2));
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', config], {
    stdio: 'inherit',
  });
}

// `from '…'`, `import('…')`, `import '…'`: every module specifier a declaration file holds.
const SPECIFIER = /(\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)(['"])([^'"]+)\2/g;

/**
 * The declaration file a workspace package's specifier stands for (relative
 * to the root), through that package's `exports`; null for an npm package.
 */
function workspaceDeclaration(spec: string, manifests: Map<string, Manifest>): string | null {
  const name = packageOf(spec);
  for (const [dir, m] of manifests) {
    if (m.name !== name) continue;
    const sub = `.${spec.slice(name.length)}`;
    const target = m.exports?.[sub === '.' ? '.' : sub];
    if (!target) throw new Error(`${name} exports no ${sub}`);
    return posix.join(dir, target.replace(/\.tsx?$/, '.d.ts'));
  }
  return null;
}

/**
 * Copy the declaration files reachable from `entry` (a source file relative
 * to the root) from `emitted` (emitDeclarations' outDir) into `stage`/types,
 * imports rewritten (see above). `byName` are the workspace packages the
 * package depends on, whose imports stay as they are. Answers the entry's
 * declaration path in the stage and the npm packages the files import.
 */
export function collectDeclarations(opts: {
  emitted: string;
  entry: string;
  stage: string;
  manifests: Map<string, Manifest>;
  byName: ReadonlySet<string>;
}): { types: string; npm: Set<string> } {
  const npm = new Set<string>();
  const toDeclaration = (p: string) => p.replace(/\.tsx?$/, '.d.ts');
  const seen = new Set<string>();
  const queue = [toDeclaration(opts.entry)];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const from = join(opts.emitted, 'out', file);
    if (!existsSync(from)) throw new Error(`no declarations were emitted for ${file}`);
    const text = readFileSync(from, 'utf8').replace(SPECIFIER, (all, lead, q, spec: string) => {
      let target: string | null;
      if (spec.startsWith('.')) target = posix.join(posix.dirname(file), toDeclaration(spec));
      else if (opts.byName.has(packageOf(spec)) || spec.startsWith('node:')) return all;
      else target = workspaceDeclaration(spec, opts.manifests);
      if (target === null) {
        npm.add(packageOf(spec));
        return all;
      }
      queue.push(target);
      let rel = relative(posix.dirname(file), target).replace(/\.d\.ts$/, '.js');
      if (!rel.startsWith('.')) rel = `./${rel}`;
      return `${lead}${q}${rel}${q}`;
    });
    const to = join(opts.stage, 'types', file);
    mkdirSync(dirname(to), { recursive: true });
    writeFileSync(to, text);
  }
  return { types: `./types/${toDeclaration(opts.entry)}`, npm };
}
