// Tests of `keepgraph bench recall` and its parts: the scorer's arithmetic
// on a hand-made results file, the results-file checker, and one in-process
// run of the command on a tiny dataset with the real engine and model.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BenchRecallReport } from '../src/commands/bench-recall-run.ts';
import type { Io } from '../src/io.ts';
import { runCli } from '../src/run.ts';
import { checkResultsFile } from '../src/retrieval-eval/check.ts';
import { evalOwnerId, padWithUnretrieved } from '../src/retrieval-eval/run-eval.ts';
import { defaultPolicy, evaluateStoredFields } from '@keepgraph/core/policy';
import { parseDataset, type Dataset } from '../src/retrieval-eval/dataset.ts';
import { formatResults, type ResultLine } from '../src/retrieval-eval/results.ts';
import { percentile, scoreResults } from '../src/retrieval-eval/score.ts';
import { neo4jUri } from '../../../test/services.ts';

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

/** An Io that keeps what the command prints. */
function captureIo(): Io & { outLines: string[]; errLines: string[] } {
  const outLines: string[] = [];
  const errLines: string[] = [];
  const sink = { write: () => true } as unknown as NodeJS.WritableStream;
  return {
    outLines,
    errLines,
    out: (l) => void outLines.push(l),
    err: (l) => void errLines.push(l),
    stdout: sink,
    stderr: sink,
    stderrIsTTY: false,
  };
}

// 30 turns the policy stores, each about something different, plus two it
// refuses (a service phrase and a too-short text): 32 turns in all.
const TOPICS = [
  'I started learning to play the cello last winter and practise every evening',
  'My sister Lena moved to Lisbon for a job at a marine biology institute',
  'We adopted a rescue greyhound called Pixel from the shelter in March',
  'I have been reading a long novel about Antarctic explorers on the train',
  'The bakery on our street makes the best cardamom buns I have ever tasted',
  'My pet iguana Bartholomew only eats hibiscus flowers and dandelion leaves',
  'Last weekend I ran my first half marathon in two hours and five minutes',
  'I am saving money to buy a secondhand sailboat next summer',
  'Our book club is discussing a mystery set in a Scottish lighthouse',
  'I volunteer at the community garden on Saturday mornings planting tomatoes',
  'My grandmother taught me how to knit woollen socks when I was nine',
  'I switched jobs and now work as a data analyst for a wind energy company',
  'We painted the kitchen a pale green colour that my partner picked',
  'I broke my wrist skateboarding when I was a teenager',
  'The jazz concert downtown featured an amazing saxophone player from Chicago',
  'I am trying to cut down on coffee and drink more herbal tea instead',
  'My daughter just lost her first tooth and wrote a note to the tooth fairy',
  'We are planning a road trip through the national parks in Utah',
  'I fixed the leaking bathroom tap myself after watching a video tutorial',
  'The museum had a new exhibition of Japanese woodblock prints',
  'I signed up for an evening pottery class at the art centre',
  'My neighbour lends me his ladder whenever I clean the gutters',
  'I finally finished the thousand piece jigsaw puzzle of a harbour at sunset',
  'Our football team won the local league after a penalty shootout',
  'I grew chilli peppers on the balcony and made a very hot sauce',
  'My cousin is getting married in Vienna in September',
  'I listened to a podcast about the history of printing presses',
  'The power went out during the thunderstorm and we played board games by candlelight',
  'I bought a refurbished laptop because my old one would not turn on',
  'I am learning Portuguese so I can talk to my sister neighbours in Lisbon',
];

function tinyDataset(): Dataset {
  const turns = TOPICS.map((text, i) => ({
    id: `D1:${i + 1}`,
    sessionId: 'S1',
    speaker: i % 2 === 0 ? 'Alex' : 'Sam',
    text,
    timestamp: new Date(Date.UTC(2023, 4, 8, 13, i)).toISOString(),
  }));
  turns.push({
    id: 'D1:31',
    sessionId: 'S1',
    speaker: 'Sam',
    text: 'Thanks!',
    timestamp: turns[0]!.timestamp,
  });
  turns.push({
    id: 'D1:32',
    sessionId: 'S1',
    speaker: 'Alex',
    text: 'ok',
    timestamp: turns[0]!.timestamp,
  });
  return parseDataset({
    format: 'memory-retrieval-eval/v1',
    name: 'tiny',
    conversations: [
      {
        id: 'conv-t',
        turns,
        questions: [
          {
            id: 'q0',
            question: 'What does the iguana Bartholomew eat?',
            evidence: ['D1:6'],
            category: 'single-hop',
          },
          {
            id: 'q1',
            question: 'Where did Lena move for work?',
            evidence: ['D1:2'],
            category: 'single-hop',
          },
          {
            id: 'q2',
            question: 'What instrument is Alex learning?',
            evidence: ['D1:1'],
            category: 'multi-hop',
          },
          {
            id: 'q3',
            question: 'What did they do when the power went out?',
            evidence: ['D1:28'],
            category: 'temporal',
          },
        ],
      },
    ],
  });
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keepgraph-eval-'));
  // A cleanup returned from beforeAll runs after the file's tests, as an afterAll.
  return () => rm(dir, { recursive: true, force: true });
});

/**
 * Run `keepgraph --data <dataDir> bench recall --dataset <dataset> --results
 * <results> ...extra` in process, keeping what it prints.
 */
async function benchRecall(
  dataDir: string,
  dataset: string,
  results: string,
  extra: string[] = [],
): Promise<{ code: number; io: ReturnType<typeof captureIo> }> {
  const io = captureIo();
  const code = await runCli(
    [
      'node',
      'keepgraph',
      '--data',
      dataDir,
      'bench',
      'recall',
      '--dataset',
      dataset,
      '--results',
      results,
      ...extra,
    ],
    io,
  );
  return { code, io };
}

describe('padWithUnretrieved', () => {
  it('keeps a full list, and follows a short one with the unretrieved turns in write order', () => {
    expect(padWithUnretrieved(['a', 'b'], ['x', 'a', 'y'], 2)).toEqual({
      turnIds: ['a', 'b'],
      padded: false,
    });
    expect(padWithUnretrieved(['b'], ['a', 'b', 'c', 'd'], 3)).toEqual({
      turnIds: ['b', 'a', 'c'],
      padded: true,
    });
    // An owner with fewer turns than k gets them all, no more.
    expect(padWithUnretrieved([], ['a', 'b'], 25)).toEqual({ turnIds: ['a', 'b'], padded: true });
  });
});

describe('scoreResults', () => {
  it('computes recall@k / hit@k per category and overall, and latency percentiles', () => {
    const d = parseDataset({
      format: 'memory-retrieval-eval/v1',
      name: 'hand',
      conversations: [
        {
          id: 'c',
          turns: ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => ({
            id,
            sessionId: 'S',
            speaker: 'X',
            text: id,
          })),
          questions: [
            { id: 'q1', question: '?', evidence: ['a'], category: 'x' },
            { id: 'q2', question: '?', evidence: ['b', 'f'], category: 'x' },
            { id: 'q3', question: '?', evidence: ['e'], category: 'y' },
            { id: 'q4', question: '?', evidence: [], category: 'y' },
          ],
        },
      ],
    });
    const results: ResultLine[] = [
      { questionId: 'q1', turnIds: ['a', 'b'], latencyMs: 10 },
      // b at rank 2 (k=5 finds 1 of 2), f at rank 6 (k=10 finds both).
      { questionId: 'q2', turnIds: ['c', 'b', 'd', 'e', 'a', 'f'], latencyMs: 20 },
      { questionId: 'q3', turnIds: ['a'], latencyMs: 30 },
      { questionId: 'q4', turnIds: ['a'], latencyMs: 40 },
    ];
    const m = scoreResults(d, results);
    expect(m.unscoredQuestions).toBe(1);
    expect(m.overall.questions).toBe(3);
    // recall@1: q1 1, q2 0, q3 0 -> 33.3; @5: 1, .5, 0 -> 50; @10: 1, 1, 0 -> 66.7
    expect(m.overall.recall).toEqual({ 1: 33.3, 5: 50, 10: 66.7, 25: 66.7 });
    expect(m.overall.hit).toEqual({ 1: 33.3, 5: 66.7, 10: 66.7, 25: 66.7 });
    expect(m.byCategory.x).toEqual({
      questions: 2,
      recall: { 1: 50, 5: 75, 10: 100, 25: 100 },
      hit: { 1: 50, 5: 100, 10: 100, 25: 100 },
    });
    expect(m.byCategory.y!.questions).toBe(1);
    expect(m.byCategory.y!.recall[25]).toBe(0);
    expect(m.latencyMs).toEqual({ p50: 20, p95: 40 });
    expect(percentile([], 50)).toBe(0);
  });
});

describe('keepgraph bench recall', { timeout: 120_000 }, () => {
  it('rejects a malformed dataset with a clear message', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(
      bad,
      JSON.stringify({
        format: 'memory-retrieval-eval/v1',
        name: 'x',
        conversations: [{ id: 'c' }],
      }),
    );
    const { code, io } = await benchRecall(dir, bad, join(dir, 'r.jsonl'));
    expect(code).toBe(1);
    expect(io.errLines.join('\n')).toMatch(
      /not a valid memory-retrieval-eval\/v1 file: conversations\.0\.turns/,
    );
  });

  it('runs on a tiny dataset with the real engine, writes a valid results file, and the checker catches broken ones', async () => {
    if (!existsSync(join(ROOT, 'models')))
      throw new Error('models missing: run `bash scripts/setup-models.sh`');
    const dataset = tinyDataset();
    const datasetPath = join(dir, 'tiny.json');
    const resultsPath = join(dir, 'results.jsonl');
    await writeFile(datasetPath, JSON.stringify(dataset));
    const { code, io } = await benchRecall(join(dir, 'data'), datasetPath, resultsPath, ['--json']);
    expect(io.errLines.filter((l) => l.startsWith('error'))).toEqual([]);
    expect(code).toBe(0);
    const report = JSON.parse(io.outLines.join('\n')) as BenchRecallReport;
    expect(report.ingest.turns).toBe(32);
    expect(report.ingest.stored).toBe(30);
    expect(report.ingest.refused).toBe(2);
    expect(Object.values(report.ingest.refusedByCode).reduce((a, b) => a + b, 0)).toBe(2);
    expect(
      io.errLines.some((l) => l.startsWith('conv-t: ingested 30 of 32 turns, refused 2')),
    ).toBe(true);
    expect(io.errLines.some((l) => l.startsWith('check ok'))).toBe(true);

    // The results file passes the checker; the distinctive turn is found.
    expect(await checkResultsFile(dataset, resultsPath)).toEqual([]);
    const lines = (await readFile(resultsPath, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as ResultLine);
    expect(lines.map((l) => l.questionId)).toEqual(['q0', 'q1', 'q2', 'q3']);
    expect(lines[0]!.turnIds.slice(0, 5)).toContain('D1:6');
    const iguana = scoreResults(
      {
        ...dataset,
        conversations: [
          { ...dataset.conversations[0]!, questions: [dataset.conversations[0]!.questions[0]!] },
        ],
      },
      lines,
    );
    expect(iguana.overall.hit[5]).toBe(100);
    for (const l of lines) {
      expect(l.turnIds.length).toBeGreaterThanOrEqual(25);
      expect(l.turnIds).not.toContain('D1:31'); // refused turns are not retrievable
      expect(l.latencyMs).toBeGreaterThanOrEqual(0);
    }

    // --check on the good file exits 0.
    const ok = captureIo();
    expect(
      await runCli(
        ['node', 'keepgraph', 'bench', 'recall', '--dataset', datasetPath, '--check', resultsPath],
        ok,
      ),
    ).toBe(0);

    // Broken copies: a missing question, a foreign turn id, a duplicate id.
    const broken = async (name: string, ls: ResultLine[]) => {
      const p = join(dir, name);
      await writeFile(p, formatResults(ls));
      return checkResultsFile(dataset, p);
    };
    const missing = await broken('missing.jsonl', lines.slice(0, 3));
    expect(missing.join('\n')).toMatch(/1 question\(s\) not answered: q3/);
    const foreign = await broken(
      'foreign.jsonl',
      lines.map((l, i) => (i === 1 ? { ...l, turnIds: ['D9:99', ...l.turnIds] } : l)),
    );
    expect(foreign.join('\n')).toMatch(/q1: not turns of conv-t: D9:99/);
    const dup = await broken(
      'dup.jsonl',
      lines.map((l, i) => (i === 2 ? { ...l, turnIds: [l.turnIds[0]!, ...l.turnIds] } : l)),
    );
    expect(dup.join('\n')).toMatch(/q2: duplicate ids/);

    const bad = captureIo();
    const p = join(dir, 'missing.jsonl');
    expect(
      await runCli(
        ['node', 'keepgraph', 'bench', 'recall', '--dataset', datasetPath, '--check', p],
        bad,
      ),
    ).toBe(1);
    expect(bad.errLines.join('\n')).toMatch(/check failed/);
  });
  it('--store neo4j ingests into Neo4j (NEO4J_URI) and writes a valid results file', async () => {
    const dataset = tinyDataset();
    const datasetPath = join(dir, 'tiny-neo4j.json');
    const resultsPath = join(dir, 'neo4j.jsonl');
    const dataDir = join(dir, 'data-neo4j');
    await writeFile(datasetPath, JSON.stringify(dataset));
    const saved = { uri: process.env.NEO4J_URI, store: process.env.KEEPGRAPH_STORE };
    process.env.NEO4J_URI = neo4jUri();
    delete process.env.KEEPGRAPH_STORE;
    try {
      const { code, io } = await benchRecall(dataDir, datasetPath, resultsPath, [
        '--store',
        'neo4j',
        '--json',
      ]);
      expect(code).toBe(0);
      const report = JSON.parse(io.outLines.join('\n')) as BenchRecallReport;
      expect(report.ingest.stored).toBe(30);
      expect(await checkResultsFile(dataset, resultsPath)).toEqual([]);
      // Nothing went into an embedded store.
      expect(existsSync(join(dataDir, 'keepgraph.db'))).toBe(false);
    } finally {
      if (saved.uri === undefined) delete process.env.NEO4J_URI;
      else process.env.NEO4J_URI = saved.uri;
      if (saved.store !== undefined) process.env.KEEPGRAPH_STORE = saved.store;
    }
  });

  it('--consolidate asks before and after the background jobs run to idle, reports both and what they derived, and ranks the same twice', async () => {
    const dataset = tinyDataset();
    const datasetPath = join(dir, 'tiny-cons.json');
    await writeFile(datasetPath, JSON.stringify(dataset));
    const run = async (n: number) => {
      const results = join(dir, `cons-${n}.jsonl`);
      const { code, io } = await benchRecall(join(dir, `data-cons-${n}`), datasetPath, results, [
        '--consolidate',
        '--json',
      ]);
      expect(code).toBe(0);
      return { report: JSON.parse(io.outLines.join('\n')) as BenchRecallReport, results };
    };
    const a = await run(1);
    const c = a.report.consolidation!;
    expect(c.rawResults).toBe(join(dir, 'cons-1.raw.jsonl'));
    expect(await checkResultsFile(dataset, a.results)).toEqual([]);
    expect(await checkResultsFile(dataset, c.rawResults)).toEqual([]);
    expect(c.raw.overall.questions).toBe(a.report.overall.questions);
    // Thirty turns of one session: reflection wrote context summaries at least.
    expect(c.derivedLive.summary).toBeGreaterThan(0);
    expect(c.derivedLivePer1000).toBeGreaterThan(0);
    expect(c.idleMs).toBeGreaterThan(0);
    const b = await run(2);
    expect(b.report.digest).toBe(a.report.digest);
    const ids = async (f: string) =>
      (await readFile(f, 'utf8'))
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as ResultLine).turnIds);
    expect(await ids(b.results)).toEqual(await ids(a.results));
  });

  it('--consolidate measures the engine only', async () => {
    const datasetPath = join(dir, 'tiny-cons-x.json');
    await writeFile(datasetPath, JSON.stringify(tinyDataset()));
    const { code, io } = await benchRecall(join(dir, 'data-x'), datasetPath, join(dir, 'x.jsonl'), [
      '--consolidate',
      '--baseline',
      'bm25',
    ]);
    expect(code).toBe(1);
    expect(io.errLines.join('\n')).toMatch(/--consolidate measures the engine/);
  });

  it('the BM25 baseline pads its short lists with unretrieved turns and passes the check', async () => {
    const dataset = tinyDataset();
    const datasetPath = join(dir, 'tiny-bm25.json');
    const resultsPath = join(dir, 'bm25.jsonl');
    await writeFile(datasetPath, JSON.stringify(dataset));
    const { code, io } = await benchRecall(join(dir, 'data-bm25'), datasetPath, resultsPath, [
      '--baseline',
      'bm25',
      '--json',
    ]);
    expect(code).toBe(0);
    const report = JSON.parse(io.outLines.join('\n')) as BenchRecallReport;
    expect(report.paddedQuestions).toBeGreaterThan(0);
    expect(await checkResultsFile(dataset, resultsPath)).toEqual([]);
    expect(report.overall.hit[5]).toBeGreaterThan(0);
  });
});

describe('evalOwnerId', () => {
  it('never names an owner the default policy refuses (random digits read as a phone number)', async () => {
    const policy = defaultPolicy();
    const ids = Array.from({ length: 2000 }, () => evalOwnerId('conv-26'));
    expect(new Set(ids).size).toBe(ids.length);
    const refused = (
      await Promise.all(
        ids.map((value) => evaluateStoredFields(policy, [{ path: 'ownerId', value }])),
      )
    ).filter((r) => r !== null);
    expect(refused).toEqual([]);
  });
});
