// The alert rules shipped beside the Grafana dashboard
// (docs/prometheus-alerts.yml): promtool accepts them, their unit tests pass
// (test/alerts/prometheus-alerts*.test.yml: each alert fires on its warning
// sign and stays quiet without it), and every series they read is one a
// real `keepgraph start` serves, with the labels the rules group and filter
// by. A rule over a renamed metric would otherwise never fire, silently.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { scratchKeepGraph, type KeepGraphProcess } from './keepgraph-process.ts';
import { SIGN_THRESHOLDS, warningSigns } from '../../packages/ui/src/warning-signs.ts';
import { kpisFixture } from '@keepgraph/core/testing';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const RULES = resolve(root, 'docs/prometheus-alerts.yml');
const TOKEN = 'alert-rules-test-metrics-token-0123456789abcdef';

interface RuleFile {
  groups: { name: string; rules: { alert: string; expr: string }[] }[];
}

/** The metric names an expression reads (histogram series by their family). */
function seriesOf(expr: string): Set<string> {
  return new Set([...expr.matchAll(/\bkeepgraph_[a-z0-9_]+/g)].map((m) => m[0]));
}

/** The label names an expression filters or groups by. */
function labelsOf(expr: string): Set<string> {
  const names = new Set<string>();
  for (const m of expr.matchAll(/\{([^}]*)\}/g))
    for (const l of m[1]!.matchAll(/([a-z_]+)\s*(?:=~|!=|=)/g)) names.add(l[1]!);
  for (const m of expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g))
    for (const l of m[1]!.split(',')) if (l.trim()) names.add(l.trim());
  return names;
}

describe('the Prometheus alert rules', () => {
  const server = scratchKeepGraph('keepgraph-alert-rules-', {
    KEEPGRAPH_METRICS_TOKEN: TOKEN,
    KEEPGRAPH_RATE_LIMIT: '0',
  });
  let kg: KeepGraphProcess;
  let rules: RuleFile;

  beforeAll(async () => {
    rules = parse(await readFile(RULES, 'utf8')) as RuleFile;
    kg = await server.start();
  }, 120_000);
  afterAll(() => server.end('stop'));

  it('pass promtool check rules and their unit tests', async () => {
    const check = await run('promtool', ['check', 'rules', RULES], { encoding: 'utf8' });
    expect(check.stdout).toMatch(/SUCCESS: 6 rules found/);
    const tests = await run(
      'promtool',
      ['test', 'rules', 'prometheus-alerts.test.yml', 'prometheus-alerts-weekly.test.yml'],
      {
        cwd: resolve(root, 'test/alerts'),
        encoding: 'utf8',
      },
    );
    expect(tests.stdout.match(/SUCCESS/g)).toHaveLength(2);
  });

  it('read only series a running keepgraph serves, by labels it gives them', async () => {
    // A forget, so the cascade histogram has a sample with its labels.
    const headers = {
      authorization: `Bearer ${kg.operatorKey}`,
      'content-type': 'application/json',
    };
    const m = await fetch(`${kg.base}/v1/owners/alerts/memories`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ kind: 'fact', text: 'Kim keeps bees', origin: { sessionId: 's' } }),
    });
    const { memory } = (await m.json()) as { memory: { id: string } };
    await fetch(`${kg.base}/v1/owners/alerts/forget`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ ids: [memory.id] }),
    });
    const scrape = await (
      await fetch(`${kg.base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).text();

    // Every family the scrape declares, with its type, and the labels its samples carry.
    const types = new Map(
      [...scrape.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((t) => [t[1]!, t[2]!] as const),
    );
    const labels = new Map<string, Set<string>>();
    for (const s of scrape.matchAll(/^(keepgraph_[a-z0-9_]+)\{([^}]*)\}/gm)) {
      const set = labels.get(s[1]!) ?? new Set<string>();
      for (const l of s[2]!.matchAll(/([a-z_]+)="/g)) set.add(l[1]!);
      labels.set(s[1]!, set);
    }
    const family = (name: string) => {
      const base = name.replace(/_(bucket|count|sum)$/, '');
      return types.get(base) === 'histogram' ? base : name;
    };

    const rulesSeen: string[] = [];
    for (const rule of rules.groups.flatMap((g) => g.rules)) {
      rulesSeen.push(rule.alert);
      const series = [...seriesOf(rule.expr)];
      expect(series.length, rule.alert).toBeGreaterThan(0);
      for (const name of series) {
        expect(types.has(family(name)), `${rule.alert} reads ${name}`).toBe(true);
      }
      // Each label the rule uses is carried by some series it reads (le: histograms' own).
      const carried = new Set(series.flatMap((n) => [...(labels.get(n) ?? [])]));
      for (const l of labelsOf(rule.expr))
        if (l !== 'le' && series.some((n) => labels.has(n)))
          expect(carried.has(l), `${rule.alert} uses label ${l}`).toBe(true);
    }
    expect(rulesSeen).toHaveLength(6);
  });

  it("hold the thresholds the UI's overview raises its signs at, and name the same alerts", () => {
    const t = SIGN_THRESHOLDS;
    const expr = (alert: string) =>
      rules.groups.flatMap((g) => g.rules).find((r) => r.alert === alert)!.expr;
    expect(expr('KeepGraphMemoriesAgeWithoutDeletions')).toContain(
      `> ${t.ageingShareOfWeek} * 7 * 86400`,
    );
    expect(expr('KeepGraphExpiryLate')).toContain(`_seconds > ${t.expiryLagSeconds}\n`);
    expect(expr('KeepGraphRefusalSpike')).toContain(`> ${t.refusalShare}\n`);
    expect(expr('KeepGraphRefusalSpike')).toContain(`[15m])) > ${t.refusalCount}`);
    expect(expr('KeepGraphQueueBacklogGrowing')).toContain(`> ${t.queueWaiting}\n`);
    // Each sign the overview shows is an alert of the file (the metrics
    // source's own alert has no sign: the page reads the API, not a scrape).
    const alerts = rules.groups.flatMap((g) => g.rules).map((r) => r.alert);
    const signs = warningSigns({
      kpis: kpisFixture(),
      queues: [],
      serverErrors: {},
      now: new Date(),
    });
    expect(alerts).toEqual(expect.arrayContaining(signs.map((s) => s.alert)));
    expect(signs).toHaveLength(alerts.length - 1);
  });
});
