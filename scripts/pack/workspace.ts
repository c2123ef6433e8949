// What the pack scripts read of the workspace: its packages' manifests, the
// version the lockfile resolved for each npm dependency, and the npm
// packages a bundle imports.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Metafile } from 'esbuild';

export const root = resolve(import.meta.dirname, '../..');

export interface Manifest {
  name: string;
  version: string;
  description?: string;
  exports?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}
export const readManifest = (p: string) => JSON.parse(readFileSync(p, 'utf8')) as Manifest;

/**
 * Every workspace package's manifest, by its folder (relative to the root):
 * the folders pnpm-workspace.yaml lists (`dir/*`: each folder in dir). Read
 * from the files, not from git, so that it works where the tree has no
 * repository (an image build's context).
 */
export function workspaceManifests(): Map<string, Manifest> {
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

/**
 * The version installed for each npm package a workspace manifest declares
 * (the lockfile's resolution), by name.
 */
export function resolvedVersions(manifests: Map<string, Manifest>): Map<string, string> {
  const resolved = new Map<string, string>();
  for (const [dir, m] of manifests)
    for (const [dep, range] of Object.entries({ ...m.devDependencies, ...m.dependencies })) {
      if (range.startsWith('workspace:') || resolved.has(dep)) continue;
      const installed = join(root, dir, 'node_modules', dep, 'package.json');
      if (existsSync(installed)) resolved.set(dep, readManifest(installed).version);
    }
  return resolved;
}

/** The package name of an import specifier (`@scope/name/sub` → `@scope/name`). */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

/** The npm packages a bundle imports: the package name of each external import. */
export function externalPackages(meta: Metafile): Set<string> {
  const names = new Set<string>();
  for (const out of Object.values(meta.outputs))
    for (const imp of out.imports) {
      if (!imp.external || imp.path.startsWith('node:') || imp.path.startsWith('.')) continue;
      names.add(packageOf(imp.path));
    }
  return names;
}

/** `{ name: version }` sorted by name, each from `versions`; a name without one is an error naming `what`. */
export function pinned(
  names: Iterable<string>,
  versions: Map<string, string>,
  what: string,
  range: (version: string) => string = (v) => v,
): Record<string, string> {
  const out: [string, string][] = [];
  for (const name of names) {
    const version = versions.get(name);
    if (!version) throw new Error(`${what} imports ${name}, which no workspace manifest declares`);
    out.push([name, range(version)]);
  }
  return Object.fromEntries(out.sort(([a], [b]) => a.localeCompare(b)));
}
