// CLI for the workload generator: streams JSONL, one WorkloadRecord a line.
//   pnpm -s tsx bench/workload/generate.ts --owners N --memories N --seed S [--out FILE.jsonl]
//     [--owner-sizes skewed|fixed] [--skew 1] [--secret-rate 0.01] [--personal-rate 0.01]
//     [--preference-rate 0.04] [--update-rate 0.01] [--chain-rate 0.005]
//     [--chain-depth 2] [--chain-fanout 3] [--cross-link-rate 0.1] [--ttl-rate 0.1]
//     [--owner-prefix owner-] [--check [--gate-every 50]]
// Without --out the records go to stdout. --check also generates the same
// workload a second time and compares the bytes (sha-256), validates every
// record, and runs the default policy gate on every secret and personal-data
// record (and one other record in --gate-every) to prove the labels; a
// summary goes to stderr and the exit code is 1 on any problem.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { generateWorkload, type WorkloadOptions } from './generator.ts';
import { WorkloadChecker } from './check.ts';

const { values } = parseArgs({
  options: {
    owners: { type: 'string', default: '10' },
    memories: { type: 'string', default: '1000' },
    seed: { type: 'string', default: '42' },
    out: { type: 'string' },
    'owner-sizes': { type: 'string', default: 'skewed' },
    skew: { type: 'string' },
    'secret-rate': { type: 'string' },
    'personal-rate': { type: 'string' },
    'preference-rate': { type: 'string' },
    'update-rate': { type: 'string' },
    'chain-rate': { type: 'string' },
    'chain-depth': { type: 'string' },
    'chain-fanout': { type: 'string' },
    'cross-link-rate': { type: 'string' },
    'ttl-rate': { type: 'string' },
    'owner-prefix': { type: 'string' },
    check: { type: 'boolean', default: false },
    'gate-every': { type: 'string', default: '50' },
  },
});

const num = (v: string | undefined): number | undefined => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`not a number: ${v}`);
  return n;
};

const sizesMode = values['owner-sizes'];
if (sizesMode !== 'skewed' && sizesMode !== 'fixed')
  throw new Error('--owner-sizes must be skewed or fixed');
const options: WorkloadOptions = {
  owners: num(values.owners)!,
  memories: num(values.memories)!,
  seed: num(values.seed)!,
  ownerSizes: sizesMode,
  skew: num(values.skew),
  secretRate: num(values['secret-rate']),
  personalRate: num(values['personal-rate']),
  preferenceRate: num(values['preference-rate']),
  updateRate: num(values['update-rate']),
  chainRate: num(values['chain-rate']),
  chainDepth: num(values['chain-depth']),
  chainFanout: num(values['chain-fanout']),
  crossLinkRate: num(values['cross-link-rate']),
  ttlRate: num(values['ttl-rate']),
  ownerPrefix: values['owner-prefix'],
};

async function write(out: Writable, line: string): Promise<void> {
  if (!out.write(line)) await once(out, 'drain');
}

const t0 = performance.now();
const out: Writable = values.out ? createWriteStream(values.out) : process.stdout;
const hash = createHash('sha256');
const checker = values.check ? new WorkloadChecker(Number(values['gate-every'])) : null;
let n = 0;
for (const rec of generateWorkload(options)) {
  const line = `${JSON.stringify(rec)}\n`;
  hash.update(line);
  await write(out, line);
  if (checker) await checker.add(rec);
  if (++n % 100_000 === 0) process.stderr.write(`\r${n} records`);
}
if (n >= 100_000) process.stderr.write('\n');
if (values.out) {
  out.end();
  await once(out, 'finish');
}
const digest = hash.digest('hex');
const sec = (performance.now() - t0) / 1000;
console.error(`${n} records in ${sec.toFixed(1)} s, sha256 ${digest}`);

if (checker) {
  // Determinism: the same options again must give the same bytes.
  const again = createHash('sha256');
  for (const rec of generateWorkload(options)) again.update(`${JSON.stringify(rec)}\n`);
  const report = checker.report();
  if (again.digest('hex') !== digest) report.problems.push('a second run gave different bytes');
  if (report.records !== options.memories)
    report.problems.push(`${report.records} records, asked for ${options.memories}`);
  console.error(JSON.stringify({ sha256: digest, ...report }, null, 2));
  if (report.problems.length > 0) {
    console.error(`check FAILED: ${report.problems.length} problem(s)`);
    process.exitCode = 1;
  } else console.error('check ok');
}
