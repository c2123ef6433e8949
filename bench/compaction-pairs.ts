// How many of the pairs compaction would join are duplicates of one
// statement: every pair of turns of each conversation whose embeddings (as
// stored: core's embeddingText) reach the cosine threshold, labelled by a
// stated rule, with a sample printed to read by hand.
//   pnpm -s tsx bench/compaction-pairs.ts --dataset ../shared/datasets/locomo-dev.json [--threshold 0.9] [--sample 300]
// The rule (`carriesAllOf` in core's compaction): a pair is a duplicate when
// each text carries every content word and every number of the other, after
// lower-casing and dropping stop words; otherwise joining them loses what one
// of them says.
import { parseArgs } from 'node:util';
import { carriesAllOf, cosine, embeddingText, wordOverlap } from '@keepgraph/core/jobs';
import { seededRandom } from '@keepgraph/core/testing';
import { createTransformersEmbedder } from '@keepgraph/embedder';
import { DATASET_FLAGS, flaggedDataset } from './lib/dataset-flags.ts';
import { machineInfo } from './machine.ts';

const { values } = parseArgs({
  options: {
    ...DATASET_FLAGS,
    threshold: { type: 'string', default: '0.9' },
    sample: { type: 'string', default: '300' },
    show: { type: 'string', default: '20' },
  },
});
const dataset = await flaggedDataset(
  values,
  'usage: pnpm -s tsx bench/compaction-pairs.ts --dataset FILE [--threshold 0.9] [--sample 300]',
);
const threshold = Number(values.threshold);
const embedder = await createTransformersEmbedder();

interface Pair {
  a: string;
  b: string;
  cos: number;
  duplicate: boolean;
  overlap: number;
}
const pairs: Pair[] = [];
let turns = 0;
for (const conv of dataset.conversations) {
  const texts = conv.turns.map((t) =>
    embeddingText({ text: t.text, origin: { speaker: t.speaker } as never }),
  );
  const vectors = await embedder.embed(texts, 'document');
  turns += texts.length;
  for (let i = 0; i < texts.length; i++)
    for (let j = i + 1; j < texts.length; j++) {
      const c = cosine(vectors[i]!, vectors[j]!);
      if (c >= threshold) {
        const a = conv.turns[i]!.text;
        const b = conv.turns[j]!.text;
        pairs.push({
          a,
          b,
          cos: c,
          duplicate: carriesAllOf(a, b) && carriesAllOf(b, a),
          overlap: wordOverlap(a, b),
        });
      }
    }
}
// A fixed-seed sample, so the labelled pairs are the same on every run.
const rng = seededRandom(7);
const sample = [...pairs]
  .map((p) => ({ p, r: rng() }))
  .sort((x, y) => x.r - y.r)
  .slice(0, Number(values.sample))
  .map((x) => x.p);
const dup = sample.filter((p) => p.duplicate).length;
console.log(
  JSON.stringify(
    {
      dataset: dataset.name,
      model: embedder.modelId,
      threshold,
      turns,
      pairsAtOrAbove: pairs.length,
      sampled: sample.length,
      duplicatesInSample: dup,
      notDuplicatesShare: sample.length
        ? Math.round((1000 * (sample.length - dup)) / sample.length) / 10
        : 0,
      duplicatesAll: pairs.filter((p) => p.duplicate).length,
      // Pairs sharing at least this share of their content words (Jaccard).
      overlapAtLeast: Object.fromEntries(
        [0.3, 0.4, 0.5, 0.6, 0.8].map((t) => [t, pairs.filter((p) => p.overlap >= t).length]),
      ),
      machine: machineInfo(),
    },
    null,
    2,
  ),
);
for (const p of [...sample.slice(0, Number(values.show)), ...pairs.filter((p) => p.overlap >= 0.3)])
  console.log(
    `${p.cos.toFixed(3)} ${p.overlap.toFixed(2)} ${p.duplicate ? 'DUP ' : 'DIFF'} | ${p.a.slice(0, 90)} | ${p.b.slice(0, 90)}`,
  );
