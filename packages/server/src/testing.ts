// Test helpers for GET /metrics (the server's tests and the e2e tests):
// read samples out of a Prometheus text exposition, and what moved between
// two scrapes, and hold it to Prometheus's own checker, `promtool check
// metrics` (Debian's `prometheus` package; scripts/test.sh installs it).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(?:,|$)/y;

function unescape(v: string): string {
  return v.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
}

function parseValue(v: string): number {
  if (v === '+Inf') return Infinity;
  if (v === '-Inf') return -Infinity;
  return Number(v);
}

/** Every sample line of an exposition (comments skipped); throws on a line it cannot read. */
export function parseSamples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    const body = m[2] ?? '';
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < body.length) {
      const at = LABEL.lastIndex;
      const l = LABEL.exec(body);
      if (!l || LABEL.lastIndex === at) throw new Error(`bad labels in: ${line}`);
      labels[l[1]!] = unescape(l[2]!);
    }
    out.push({ name: m[1]!, labels, value: parseValue(m[3]!) });
  }
  return out;
}

/**
 * The value of the sample named `name` whose labels are exactly `labels`,
 * or 0 when there is none (a counter not yet incremented has no sample).
 */
export function sampleValue(
  samples: readonly Sample[],
  name: string,
  labels: Record<string, string> = {},
): number {
  const want = Object.entries(labels);
  const s = samples.find(
    (x) =>
      x.name === name &&
      Object.keys(x.labels).length === want.length &&
      want.every(([k, v]) => x.labels[k] === v),
  );
  return s?.value ?? 0;
}

/** How far a sample moved from the `before` scrape to the `after` one (0 where neither has it). */
export function sampleDelta(before: readonly Sample[], after: readonly Sample[]) {
  return (name: string, labels: Record<string, string> = {}): number =>
    sampleValue(after, name, labels) - sampleValue(before, name, labels);
}

/** A sample: its name and exact labels. */
export type SampleKey = readonly [name: string, labels: Record<string, string>];

/** A request answered: its count and its duration histogram's count, by route pattern, method and status. */
const answered = (route: string, method: string, status: string): SampleKey[] =>
  ['keepgraph_http_requests_total', 'keepgraph_http_request_duration_seconds_count'].map(
    (name) => [name, { route, method, status }] as const,
  );

const MEMORIES_ROUTE = '/v1/owners/:ownerId/memories';

/** The samples each of these requests moves by exactly one. */
export const MOVED_BY_ONE = {
  /** A memory stored by POST /v1/owners/:ownerId/memories (201). */
  write: [
    ...answered(MEMORIES_ROUTE, 'POST', '201'),
    ['keepgraph_memories_written_total', { use_case: 'remember' }],
  ],
  /** A secret that route refused (422 refused_secret). */
  refusedSecret: [
    ...answered(MEMORIES_ROUTE, 'POST', '422'),
    ['keepgraph_write_refusals_total', { use_case: 'remember', reason: 'refused_secret' }],
  ],
  /** A recall (POST …/recall). */
  recall: [
    ...answered('/v1/owners/:ownerId/recall', 'POST', '200'),
    ['keepgraph_recall_duration_seconds_count', { use_case: 'recall', outcome: 'ok' }],
  ],
  /** Forgetting memories (POST …/forget): one cascade. */
  forget: [
    ...answered('/v1/owners/:ownerId/forget', 'POST', '200'),
    ['keepgraph_cascade_deleted_memories_count', { reason: 'forget' }],
  ],
} satisfies Record<string, readonly SampleKey[]>;

/**
 * Of the samples the requests `done` move (MOVED_BY_ONE) and `also`, those
 * that did not move by exactly one from `before` to `after`, with how far
 * they moved: none when every one did.
 */
export function notMovedByOne(
  before: readonly Sample[],
  after: readonly Sample[],
  done: readonly (keyof typeof MOVED_BY_ONE)[],
  also: readonly SampleKey[] = [],
): string[] {
  const delta = sampleDelta(before, after);
  return [...done.flatMap((r) => MOVED_BY_ONE[r]), ...also]
    .filter(([name, labels]) => delta(name, labels) !== 1)
    .map(([name, labels]) => `${name} ${JSON.stringify(labels)} moved by ${delta(name, labels)}`);
}

/** Whether any sample is named `name` (with these labels, when given, as a subset). */
export function hasSample(
  samples: readonly Sample[],
  name: string,
  labels: Record<string, string> = {},
): boolean {
  return samples.some(
    (x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v),
  );
}

/**
 * `promtool check metrics` over an exposition: its exit code and what it
 * said (0 and nothing when the format and the naming lint pass). Throws
 * when promtool is not installed, so a test cannot pass without it.
 */
export function promtoolCheck(text: string): { status: number; output: string } {
  return promtool(['check', 'metrics'], text);
}

/**
 * `promtool check rules` over PromQL expressions (a dashboard's queries),
 * each as a recording rule: whether Prometheus would parse them.
 */
export function promtoolCheckQueries(exprs: readonly string[]): { status: number; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'keepgraph-promql-'));
  try {
    const file = join(dir, 'rules.yml');
    const rules = exprs.map(
      (e, i) => `      - record: keepgraph:query_${i}\n        expr: ${JSON.stringify(e)}`,
    );
    writeFileSync(file, `groups:\n  - name: queries\n    rules:\n${rules.join('\n')}\n`);
    return promtool(['check', 'rules', file]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function promtool(args: string[], input?: string): { status: number; output: string } {
  const r = spawnSync('promtool', args, {
    encoding: 'utf8',
    ...(input !== undefined && { input }),
  });
  if (r.error)
    throw new Error(
      `promtool could not run (${r.error.message}); install Debian's prometheus package: bash scripts/test.sh does`,
    );
  return { status: r.status ?? -1, output: `${r.stdout}${r.stderr}`.trim() };
}
