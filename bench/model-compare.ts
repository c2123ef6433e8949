// model-compare: which local embedding model retrieves LoCoMo evidence turns
// best, by dense retrieval alone (no BM25, no engine), in the
// memory-retrieval-eval/v1 format (see /work/shared/specs/retrieval-eval-format.md).
//
//   pnpm tsx bench/model-compare.ts [--dataset <file>] [--models id,id] [--out <file>]
//                                   [--no-query-instruction]
//
// Each turn is embedded as a document, with and without a "Speaker: " prefix;
// each question as a query; a conversation's turns are ranked by cosine.
// Prints a table and writes bench/results/model-compare.json.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  createTransformersEmbedder,
  dot,
  TRANSFORMERS_MODEL_IDS,
} from '../packages/embedder/src/index.ts';
import type { Embedder, TransformersModelId } from '../packages/embedder/src/index.ts';

interface Turn {
  id: string;
  sessionId?: string;
  speaker?: string;
  text: string;
  timestamp?: string;
}
interface Question {
  id: string;
  question: string;
  evidence: string[];
  category?: string;
}
interface Dataset {
  format: string;
  name: string;
  conversations: { id: string; turns: Turn[]; questions: Question[] }[];
}

const KS = [1, 5, 10, 25] as const;
type Scores = { questions: number; recall: Record<number, number>; hit: Record<number, number> };

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  options: {
    dataset: { type: 'string', default: '/work/shared/datasets/locomo-dev.json' },
    models: { type: 'string', default: TRANSFORMERS_MODEL_IDS.join(',') },
    out: { type: 'string', default: resolve(here, 'results/model-compare.json') },
    // Embed questions as documents, i.e. without bge's query instruction (an ablation).
    'no-query-instruction': { type: 'boolean', default: false },
  },
});

const dataset = JSON.parse(readFileSync(args.dataset, 'utf8')) as Dataset;
if (dataset.format !== 'memory-retrieval-eval/v1')
  throw new Error(`unsupported dataset format ${dataset.format}`);

const VARIANTS = {
  speaker: (t: Turn) => (t.speaker ? `${t.speaker}: ${t.text}` : t.text),
  plain: (t: Turn) => t.text,
} as const;
type Variant = keyof typeof VARIANTS;

/** Accumulates recall@k / hit@k sums per category; `mean()` turns them into means. */
class Scoreboard {
  private readonly sums = new Map<string, Scores>();
  add(category: string, ranked: readonly string[], evidence: readonly string[]): void {
    const gold = new Set(evidence);
    for (const key of ['overall', category]) {
      let s = this.sums.get(key);
      if (!s) this.sums.set(key, (s = { questions: 0, recall: {}, hit: {} }));
      s.questions++;
      for (const k of KS) {
        const found = ranked.slice(0, k).filter((id) => gold.has(id)).length;
        s.recall[k] = (s.recall[k] ?? 0) + found / gold.size;
        s.hit[k] = (s.hit[k] ?? 0) + (found > 0 ? 1 : 0);
      }
    }
  }
  mean(): Record<string, Scores> {
    const out: Record<string, Scores> = {};
    for (const [key, s] of this.sums) {
      const avg = (r: Record<number, number>) =>
        Object.fromEntries(KS.map((k) => [k, Math.round((1000 * (r[k] ?? 0)) / s.questions) / 10]));
      out[key] = { questions: s.questions, recall: avg(s.recall), hit: avg(s.hit) };
    }
    return out;
  }
}

/** Embeds and times; the clock covers model inference only, not ranking. */
async function timedEmbed(
  e: Embedder,
  texts: string[],
  purpose: 'query' | 'document',
  clock: { texts: number; ms: number },
) {
  const t0 = performance.now();
  const vs = await e.embed(texts, purpose);
  clock.ms += performance.now() - t0;
  clock.texts += texts.length;
  return vs;
}

const modelIds = args.models.split(',') as TransformersModelId[];
const queryPurpose = args['no-query-instruction'] ? 'document' : 'query';
const results: unknown[] = [];
const rows: { group: string; cells: string[] }[] = [];
const loadBefore = loadavg()[0];
const pct = (s: Scores | undefined, m: 'recall' | 'hit', k: number) =>
  s ? s[m][k]!.toFixed(1) : '-';

for (const modelId of modelIds) {
  const tLoad = performance.now();
  const embedder = await createTransformersEmbedder({ modelId });
  const loadMs = performance.now() - tLoad;
  const clock = { texts: 0, ms: 0 };
  const boards: Record<Variant, Scoreboard> = {
    speaker: new Scoreboard(),
    plain: new Scoreboard(),
  };

  for (const conv of dataset.conversations) {
    // Questions with no evidence cannot be scored (spec): skip them entirely.
    const questions = conv.questions.filter((q) => q.evidence.length > 0);
    const qVecs = await timedEmbed(
      embedder,
      questions.map((q) => q.question),
      queryPurpose,
      clock,
    );
    for (const variant of Object.keys(VARIANTS) as Variant[]) {
      const tVecs = await timedEmbed(
        embedder,
        conv.turns.map(VARIANTS[variant]),
        'document',
        clock,
      );
      questions.forEach((q, qi) => {
        const scored = conv.turns.map((t, ti) => ({
          id: t.id,
          ti,
          score: dot(qVecs[qi]!, tVecs[ti]!),
        }));
        // Ties (rare) broken by turn order so runs are reproducible.
        scored.sort((a, b) => b.score - a.score || a.ti - b.ti);
        boards[variant].add(
          q.category ?? 'uncategorised',
          scored.map((s) => s.id),
          q.evidence,
        );
      });
    }
  }

  const throughput = (clock.texts / clock.ms) * 1000;
  const variants = Object.fromEntries(
    (Object.keys(boards) as Variant[]).map((v) => [v, boards[v].mean()]),
  );
  results.push({
    modelId,
    dimensions: embedder.dimensions,
    loadMs: Math.round(loadMs),
    embeddedTexts: clock.texts,
    textsPerSecond: Math.round(throughput * 10) / 10,
    variants,
  });
  console.log(
    `${modelId}: loaded in ${(loadMs / 1000).toFixed(1)} s, embedded ${clock.texts} texts at ${throughput.toFixed(1)} texts/s`,
  );

  for (const [variant, byCat] of Object.entries(variants)) {
    for (const [cat, s] of Object.entries(byCat).sort(([a], [b]) =>
      a === 'overall' ? -1 : b === 'overall' ? 1 : a.localeCompare(b),
    )) {
      const cells = [
        modelId,
        variant,
        cat,
        String(s.questions),
        ...KS.map((k) => pct(s, 'recall', k)),
        ...KS.map((k) => pct(s, 'hit', k)),
      ];
      rows.push({ group: `${modelId} ${variant}`, cells });
    }
  }
}

// Plain-text table: one row per model x variant x category, figures in percent.
const header = [
  'model',
  'turn text',
  'category',
  'n',
  ...KS.map((k) => `R@${k}`),
  ...KS.map((k) => `H@${k}`),
];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r.cells[i]!.length)));
const fmt = (r: string[]) =>
  r.map((c, i) => (i < 3 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
const qNote = args['no-query-instruction'] ? ', questions embedded without query instruction' : '';
console.log(`\n${dataset.name}: dense retrieval over turns${qNote}, recall@k / hit@k in %\n`);
console.log(fmt(header));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
let last = '';
for (const r of rows) {
  if (last && r.group !== last) console.log('');
  last = r.group;
  console.log(fmt(r.cells));
}

mkdirSync(dirname(args.out), { recursive: true });
writeFileSync(
  args.out,
  JSON.stringify(
    {
      dataset: { path: args.dataset, name: dataset.name },
      generatedAt: new Date().toISOString(),
      queryPurpose,
      // Throughput is wall-clock: record how busy the machine was to judge it by.
      machine: {
        cpus: availableParallelism(),
        loadAvg1mBefore: loadBefore,
        loadAvg1mAfter: loadavg()[0],
      },
      ks: KS,
      models: results,
    },
    null,
    2,
  ) + '\n',
);
console.log(`\nwrote ${args.out}`);
