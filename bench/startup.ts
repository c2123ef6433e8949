// How fast the installed command starts: `keepgraph --help`, `--version`,
// and `keepgraph start` until it listens (the model already in its cache),
// from an npm install of the packed tarball, beside the same from this
// checkout's sources through tsx (how every process ran before packaging).
//
//   pnpm -s tsx bench/startup.ts --install DIR [--runs 5]
//
// DIR is a folder where `npm install .tmp/packs/keepgraph-<version>.tgz` ran
// (`pnpm pack:keepgraph` makes the tarball; test/e2e/installed.test.ts shows
// the install). Prints medians (and min / max) in milliseconds.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: { install: { type: 'string' }, runs: { type: 'string', default: '5' } },
});
if (!values.install)
  throw new Error('--install DIR is required (a folder with keepgraph installed)');
const RUNS = Number(values.runs);
const installed = [resolve(values.install, 'node_modules/keepgraph/dist/main.mjs')];
const fromSource = ['--import', 'tsx', join(root, 'packages/cli/src/main.ts')];
// The model from this checkout: both sides start without installing it.
const env = { ...process.env, KEEPGRAPH_MODELS_DIR: join(root, 'models') };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const summary = (xs: number[]) =>
  `${median(xs).toFixed(0)} ms (min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)})`;

function timeCommand(argv: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, argv, { cwd: root, env, stdio: 'ignore' });
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}`);
  return performance.now() - t0;
}

/** Milliseconds from spawning `start` to its "listening" line. */
function timeStart(argv: string[]): Promise<number> {
  const data = mkdtempSync(join(tmpdir(), 'keepgraph-startup-'));
  const t0 = performance.now();
  const child = spawn(process.execPath, [...argv, '--data', data, 'start', '--port', '0'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise<number>((ok, fail) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (/KeepGraph listening on/.test(out)) {
        const ms = performance.now() - t0;
        child.once('exit', () => {
          rmSync(data, { recursive: true, force: true });
          ok(ms);
        });
        child.kill('SIGTERM');
      }
    });
    child.once('exit', (code) => {
      if (!/KeepGraph listening on/.test(out)) fail(new Error(`start exited ${code}: ${out}`));
    });
  });
}

for (const [name, argv] of [
  ['installed', installed],
  ['from source (tsx)', fromSource],
] as const) {
  const help: number[] = [];
  const version: number[] = [];
  const start: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    help.push(timeCommand([...argv, '--help']));
    version.push(timeCommand([...argv, '--version']));
    start.push(await timeStart([...argv]));
  }
  console.log(
    `${name}: --help ${summary(help)}; --version ${summary(version)}; start to listening ${summary(start)}`,
  );
}
const bare: number[] = [];
for (let i = 0; i < RUNS; i++) bare.push(timeCommand(['-e', '0']));
console.log(`node -e 0: ${summary(bare)}`);
