// Each workspace package's manifest declares what its code imports, and
// nothing it does not: an import from src/ is a dependency (a type-only
// import may be a devDependency: nothing of it loads at run time), an
// import from test/ is either (or the workspace's tooling), and every dependency is imported from src/.
// Run by `pnpm lint`; exits 1 with one line per problem.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const files = execFileSync('git', ['ls-files', '*package.json'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f !== '' && f !== 'package.json');
const builtins = new Set(builtinModules);
// The workspace's own tooling (vitest, tsx…), which every package's tests may use.
const workspaceDev = new Set(
  Object.keys(JSON.parse(readFileSync(`${root}/package.json`, 'utf8')).devDependencies ?? {}),
);
const IMPORT =
  /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The package an import names ('@scope/name/sub' -> '@scope/name'), or null for a relative or built-in one. */
function packageOf(spec) {
  if (spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('node:')) return null;
  const parts = spec.split('/');
  const name = spec.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  return builtins.has(name) ? null : name;
}

/** Imports of a package's files under `dir`: name -> whether every import of it is type-only. */
function importsUnder(pkgDir, dir) {
  const out = new Map();
  // A package without src/ (the workspace's tests, the benchmarks) is all code but test/.
  const whole = dir === 'src' && !existsSync(`${root}/${pkgDir}/src`);
  const list = execFileSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', whole ? pkgDir : `${pkgDir}/${dir}`],
    {
      cwd: root,
      encoding: 'utf8',
    },
  )
    .split('\n')
    .filter((f) => /\.(ts|tsx|mts|js|mjs)$/.test(f) && existsSync(`${root}/${f}`))
    .filter((f) => !whole || !f.startsWith(`${pkgDir}/test/`));
  for (const f of list) {
    const text = readFileSync(`${root}/${f}`, 'utf8');
    for (const m of text.matchAll(IMPORT)) {
      const name = packageOf(m[3] ?? m[4]);
      if (name === null) continue;
      const typeOnly = m[2] !== undefined;
      out.set(name, (out.get(name) ?? true) && typeOnly);
    }
  }
  return out;
}

const problems = [];
for (const manifest of files) {
  const pkgDir = manifest.replace(/\/package\.json$/, '');
  const pkg = JSON.parse(readFileSync(`${root}/${manifest}`, 'utf8'));
  const deps = new Set([
    ...Object.keys(pkg.dependencies ?? {}),
    ...Object.keys(pkg.peerDependencies ?? {}),
  ]);
  const dev = new Set(Object.keys(pkg.devDependencies ?? {}));
  // What a package uses other than by import (a binary it runs, say), and why.
  const usedOtherwise = new Set(Object.keys(pkg.keepgraph?.usedWithoutImport ?? {}));
  const src = importsUnder(pkgDir, 'src');
  for (const [name, typeOnly] of src) {
    if (name === pkg.name || deps.has(name)) continue;
    // A package of tests only (no src/) may use the workspace's tooling.
    if (!existsSync(`${root}/${pkgDir}/src`) && (dev.has(name) || workspaceDev.has(name))) continue;
    if (typeOnly && dev.has(name)) continue;
    problems.push(`${pkg.name}: src imports ${name}, not in dependencies`);
  }
  for (const [name] of importsUnder(pkgDir, 'test')) {
    if (name === pkg.name || deps.has(name) || dev.has(name) || workspaceDev.has(name)) continue;
    problems.push(`${pkg.name}: test imports ${name}, not in dependencies or devDependencies`);
  }
  for (const name of deps)
    if (!src.has(name) && !usedOtherwise.has(name))
      problems.push(`${pkg.name}: depends on ${name}, which src never imports`);
}
for (const p of problems) console.error(p);
if (problems.length > 0) process.exit(1);
console.log(`manifests: ${files.length} packages declare what they import`);
