// What ONNX Runtime's intra-op thread count does to the model on both paths:
// one short query at a time (recall's embedding) and texts 64 at a time
// (ingest), for the default model, with ONNX Runtime's own default and with
// 1 and 2 threads. Each setting loads its own session; the rounds interleave
// the settings, and every setting's vectors are compared with the default's
// (a setting that changes stored vectors would change rankings).
//   pnpm -s tsx bench/embed-threads.ts [--queries 300] [--texts 1000] [--rounds 2]
import { mkdirSync, writeFileSync } from 'node:fs';
import { createTransformersEmbedder, type Embedder } from '@keepgraph/embedder';
import { parseFlags } from './lib/flags.ts';
import { machineInfo } from './machine.ts';
import { percentile, syntheticQueries, syntheticTexts } from './synthetic.ts';

const flags = parseFlags({ queries: 300, texts: 1000, rounds: 2 });
const SETTINGS = [undefined, 1, 2] as const;
const label = (t: number | undefined) =>
  t === undefined ? 'default' : `${t} thread${t > 1 ? 's' : ''}`;

const queries = syntheticQueries(flags.queries);
const texts = syntheticTexts(flags.texts);
const embedders = new Map<string, Embedder>();
for (const t of SETTINGS)
  embedders.set(label(t), await createTransformersEmbedder(t === undefined ? {} : { threads: t }));

const queryMs = new Map<string, number[]>();
const ingestPerSec = new Map<string, number[]>();
for (const e of embedders.values()) await e.embed(queries.slice(0, 20), 'query'); // warm-up
for (let round = 0; round < flags.rounds; round++) {
  for (const [name, e] of embedders) {
    const lat: number[] = [];
    for (const q of queries) {
      const t0 = performance.now();
      await e.embed([q], 'query');
      lat.push(performance.now() - t0);
    }
    queryMs.set(name, [...(queryMs.get(name) ?? []), ...lat]);
    const t0 = performance.now();
    for (let i = 0; i < texts.length; i += 64) await e.embed(texts.slice(i, i + 64), 'document');
    const rate = texts.length / ((performance.now() - t0) / 1000);
    ingestPerSec.set(name, [...(ingestPerSec.get(name) ?? []), rate]);
    console.error(
      `round ${round} ${name}: query p50 ${percentile(
        [...lat].sort((a, b) => a - b),
        50,
      ).toFixed(2)} ms, ${rate.toFixed(0)} texts/s`,
    );
  }
}

// Vectors against the default setting's, over queries and documents.
const sample = [...queries.slice(0, 100), ...texts.slice(0, 100)];
const reference = await embedders.get('default')!.embed(sample, 'document');
const rows = [];
for (const [name, e] of embedders) {
  const vs = await e.embed(sample, 'document');
  let maxDiff = 0;
  vs.forEach((v, i) =>
    v.forEach((x, j) => (maxDiff = Math.max(maxDiff, Math.abs(x - reference[i]![j]!)))),
  );
  const lat = [...queryMs.get(name)!].sort((a, b) => a - b);
  const rates = [...ingestPerSec.get(name)!].sort((a, b) => a - b);
  rows.push({
    setting: name,
    queryP50Ms: +percentile(lat, 50).toFixed(2),
    queryP95Ms: +percentile(lat, 95).toFixed(2),
    ingestTextsPerSec: Math.round(rates[Math.floor(rates.length / 2)]!),
    maxAbsDiffFromDefault: maxDiff,
  });
}
const result = {
  machine: machineInfo(),
  model: embedders.get('default')!.modelId,
  rounds: flags.rounds,
  rows,
};
console.log(JSON.stringify(result, null, 2));
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/embed-threads.json', JSON.stringify(result, null, 2));
