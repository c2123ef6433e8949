// mem0 OSS on a memory-retrieval-eval/v1 dataset (locomo-dev) through the same
// harness as `keepgraph bench recall`: same dataset parser, results file,
// checker and scoring, and the same embedder and indexed text as our engine.
//   pnpm -s tsx bench/peer-recall.ts --dataset ../shared/datasets/locomo-dev.json --results OUT.jsonl [--k 25] [--limit-conversations N]
// Each conversation goes under a fresh mem0 userId; each turn is one
// add(infer:false) of the text our engine embeds for an episode
// ("Speaker: text", core's embeddingText) with metadata {turnId}; each
// question is one search (topK k, threshold 0), timed as one retrieval call.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { embeddingText } from '@keepgraph/core/jobs';
import {
  checkResultsFile,
  evalOwnerId,
  formatMetricsTable,
  MIN_TURN_IDS,
  scoreResults,
  writeResults,
  type ResultLine,
} from '@keepgraph/cli/retrieval-eval';
import { createTransformersEmbedder } from '@keepgraph/embedder';
import { DATASET_FLAGS, exitWithUsage, flaggedDataset } from './lib/dataset-flags.ts';
import { createMem0Peer } from './peers/mem0.ts';
import { machineInfo } from './machine.ts';

const { values } = parseArgs({
  options: {
    ...DATASET_FLAGS,
    results: { type: 'string' },
    k: { type: 'string', default: String(MIN_TURN_IDS) },
    summary: { type: 'string', default: 'bench/results/peer-recall-mem0.json' },
  },
});
const USAGE =
  'usage: pnpm -s tsx bench/peer-recall.ts --dataset FILE --results OUT.jsonl [--k 25] [--limit-conversations N]';
if (!values.results) exitWithUsage(USAGE);
const dataset = await flaggedDataset(values, USAGE);
// Like `bench recall`: the spec wants at least 25 ids per question.
const k = Math.max(Number(values.k), MIN_TURN_IDS);
const resultsPath = resolve(values.results);

const embedder = await createTransformersEmbedder();
const peer = await createMem0Peer({ embedder });
const lines: ResultLine[] = [];
let turns = 0;
let ingestMs = 0;
let metadataMismatches = 0;

for (const conv of dataset.conversations) {
  const ownerId = evalOwnerId(conv.id);
  const t0 = performance.now();
  // One add per turn (each carries its own metadata); the peer embeds the
  // conversation's texts as documents in one batched model call first.
  const peerIds = await peer.add(
    ownerId,
    conv.turns.map((t) => ({
      text: embeddingText({
        text: t.text,
        origin: {
          sessionId: t.sessionId,
          turn: t.id,
          speaker: t.speaker,
          observedAt: t.timestamp ?? '',
          writtenBy: 'peer-recall',
        },
      }),
      metadata: { turnId: t.id },
    })),
  );
  ingestMs += performance.now() - t0;
  turns += conv.turns.length;
  const turnOf = new Map(peerIds.map((id, i) => [id, conv.turns[i]!.id]));
  console.error(`${conv.id}: added ${peerIds.length} turns to ${peer.name}`);

  for (const q of conv.questions) {
    const s = performance.now();
    const hits = await peer.search(ownerId, q.question, k);
    const latencyMs = Math.round((performance.now() - s) * 100) / 100;
    const turnIds: string[] = [];
    for (const h of hits) {
      const turn = turnOf.get(h.id);
      if (turn === undefined) continue;
      if (h.metadata?.turnId !== turn) metadataMismatches++;
      if (!turnIds.includes(turn)) turnIds.push(turn);
    }
    lines.push({ questionId: q.id, turnIds, latencyMs });
  }
  console.error(`${conv.id}: answered ${conv.questions.length} questions`);
}
await peer.close();

await writeResults(resultsPath, lines);
const metrics = scoreResults(dataset, lines);
console.log(
  `${dataset.name}: ${peer.name}, ${dataset.conversations.length} conversation(s), top ${k}; recall@k / hit@k in % ` +
    `(questions with evidence: ${metrics.overall.questions}${metrics.unscoredQuestions ? `, ${metrics.unscoredQuestions} without evidence skipped` : ''})`,
);
for (const line of formatMetricsTable(metrics)) console.log(line);
console.log(`latency p50 ${metrics.latencyMs.p50} ms, p95 ${metrics.latencyMs.p95} ms`);
console.log(
  `ingest: ${turns} of ${turns} turns added (infer:false) in ${(ingestMs / 1000).toFixed(1)} s`,
);
if (metadataMismatches > 0)
  console.error(`warning: ${metadataMismatches} hits whose metadata.turnId disagrees with add()`);

const problems = await checkResultsFile(dataset, resultsPath);
if (problems.length > 0) {
  console.error(`check failed: ${resultsPath}`);
  for (const p of problems) console.error(`  ${p}`);
  process.exitCode = 1;
} else {
  const n = dataset.conversations.reduce((a, c) => a + c.questions.length, 0);
  console.error(`check ok: ${resultsPath} answers all ${n} questions`);
}

const summary = {
  peer: peer.name,
  dataset: dataset.name,
  conversations: dataset.conversations.length,
  k,
  embedder: embedder.modelId,
  indexedText: 'Speaker: text (core embeddingText)',
  ingest: { turns, added: turns, seconds: +(ingestMs / 1000).toFixed(1) },
  check: problems.length === 0 ? 'ok' : problems,
  ...metrics,
  machine: machineInfo(),
};
mkdirSync(dirname(values.summary), { recursive: true });
writeFileSync(values.summary, JSON.stringify(summary, null, 2) + '\n');
console.error(`summary: ${values.summary}`);
