// What authentication costs a request: the same read (GET of a key that is
// not there, so no embedding and no recall) through one app, as a trusted
// caller (no authentication) and with an API key (one store read and a
// constant-time compare per request), on SQLite and, when NEO4J_URI is set,
// on Neo4j. Interleaved rounds, medians and the ratio from one run.
//   pnpm -s tsx bench/auth-overhead.ts [--requests 2000] [--out bench/results/auth-overhead.json]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { createHashingEmbedder } from '../packages/embedder/src/index.ts';
import { openEmbeddedRuntime, type StoreSelection } from '../packages/runtime/src/index.ts';
import { buildApp } from '../packages/server/src/index.ts';
import { machineInfo } from './machine.ts';

const { values } = parseArgs({
  options: { requests: { type: 'string', default: '2000' }, out: { type: 'string' } },
});
const n = Number(values.requests);
const op = { role: 'operator' as const, owners: 'all' as const, principal: 'bench' };

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return +s[Math.floor(s.length / 2)]!.toFixed(3);
};
const p95 = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return +s[Math.floor(s.length * 0.95)]!.toFixed(3);
};

async function measure(store: StoreSelection) {
  const dir = mkdtempSync(join(tmpdir(), 'kg-auth-bench-'));
  // The embedder is never called by this request: a fake one keeps start-up short.
  const rt = await openEmbeddedRuntime({
    dataDir: dir,
    store,
    embedder: createHashingEmbedder(384),
    sweepIntervalMs: null,
  });
  const keyed = buildApp({
    engine: rt.engine,
    auth: { rateLimitPerMinute: 0, authFailuresPerMinute: 0 },
  });
  const trusted = buildApp({ engine: rt.engine, auth: { trustedCaller: op } });
  const key = (await rt.engine.createKey(op, { name: 'bench', role: 'user', owners: ['o'] })).key;
  const ask = async (app: ReturnType<typeof buildApp>, auth: boolean) => {
    const t0 = performance.now();
    const r = await app.inject({
      method: 'GET',
      url: '/v1/owners/o/kv/missing',
      ...(auth && { headers: { authorization: `Bearer ${key}` } }),
    });
    if (r.statusCode !== 404) throw new Error(`unexpected ${r.statusCode}`);
    return performance.now() - t0;
  };
  for (let i = 0; i < 200; i++) await Promise.all([ask(trusted, false), ask(keyed, true)]);
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < n; i++) {
    // Alternate which goes first, so neither gets the warmer cache.
    if (i % 2) {
      a.push(await ask(trusted, false));
      b.push(await ask(keyed, true));
    } else {
      b.push(await ask(keyed, true));
      a.push(await ask(trusted, false));
    }
  }
  await keyed.close();
  await trusted.close();
  await rt.close();
  rmSync(dir, { recursive: true, force: true });
  return {
    store: store.kind,
    requests: n,
    trustedMs: { p50: median(a), p95: p95(a) },
    apiKeyMs: { p50: median(b), p95: p95(b) },
    ratioP50: +(median(b) / median(a)).toFixed(2),
    addedP50Ms: +(median(b) - median(a)).toFixed(3),
  };
}

const machine = machineInfo();
const results = [await measure({ kind: 'sqlite' })];
if (process.env.NEO4J_URI)
  results.push(await measure({ kind: 'neo4j', uri: process.env.NEO4J_URI }));
const out = { machine, results };
console.log(JSON.stringify(out, null, 2));
if (values.out) {
  mkdirSync(dirname(values.out), { recursive: true });
  writeFileSync(values.out, JSON.stringify(out, null, 2));
}
