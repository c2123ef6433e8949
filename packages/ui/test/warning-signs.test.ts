// The overview's warning signs: each raised by its sign and quiet without
// it, at the thresholds the alert rules use (test/e2e/alert-rules.test.ts
// holds the two together).
import { describe, expect, it } from 'vitest';
import type { Kpis } from '@keepgraph/core';
import { kpiDayFixture, kpisFixture } from '@keepgraph/core/testing';
import {
  SIGN_THRESHOLDS as T,
  serverErrorsIn,
  warningSigns,
  type SignInputs,
} from '../src/warning-signs.ts';

const NOW = new Date('2026-12-07T12:00:00Z');
const DAY = 86_400_000;
const day = (daysAgo: number, counts: Partial<Kpis['series'][number]> = {}) =>
  kpiDayFixture(new Date(NOW.getTime() - daysAgo * DAY).toISOString().slice(0, 10), counts);
/** One owner holding ten memories a day old, written and never deleted. */
const kpis = (k: Partial<Kpis> = {}): Kpis =>
  kpisFixture({ owners: 1, memories: 10, medianAgeMs: DAY, writes: 10, ...k });
const levels = (i: Partial<SignInputs>) =>
  Object.fromEntries(
    warningSigns({ kpis: kpis(), queues: [], serverErrors: {}, now: NOW, ...i }).map((s) => [
      s.alert,
      s.level,
    ]),
  );

describe('the warning signs', () => {
  it('are all quiet on a healthy owner', () => {
    expect(new Set(Object.values(levels({})))).toEqual(new Set(['ok']));
  });

  it('raise "memories only get older" with no deletion in a week and an old median, not with one deletion', () => {
    const old = { medianAgeMs: T.ageingShareOfWeek * 7 * DAY + 1 };
    expect(levels({ kpis: kpis(old) }).KeepGraphMemoriesAgeWithoutDeletions).toBe('warning');
    expect(
      levels({ kpis: kpis({ ...old, series: [day(6, { deletions: 1 })] }) })
        .KeepGraphMemoriesAgeWithoutDeletions,
    ).toBe('ok');
    // A deletion eight days ago is outside the week.
    expect(
      levels({ kpis: kpis({ ...old, series: [day(7, { deletions: 1 })] }) })
        .KeepGraphMemoriesAgeWithoutDeletions,
    ).toBe('warning');
  });

  it('raise "expiry late" past the tolerance only', () => {
    const lag = (s: number) =>
      levels({
        kpis: kpis({ expiry: { ...kpis().expiry, purged: 3, lagP50Ms: s * 1000 } }),
      }).KeepGraphExpiryLate;
    expect(lag(T.expiryLagSeconds)).toBe('ok');
    expect(lag(T.expiryLagSeconds + 1)).toBe('warning');
  });

  it('raise a refusal spike on a high share of many refusals today, not on a few', () => {
    const today = (refusals: number, writes: number) =>
      levels({ kpis: kpis({ series: [day(0, { refusals, writes })] }) }).KeepGraphRefusalSpike;
    expect(today(T.refusalCount + 1, 0)).toBe('warning');
    expect(today(T.refusalCount, 0)).toBe('ok');
    expect(today(T.refusalCount + 1, 1000)).toBe('ok');
  });

  it('read server errors and queues for operators only, and raise them', () => {
    expect(levels({ serverErrors: null, queues: null })).toMatchObject({
      KeepGraphServerErrors: 'unknown',
      KeepGraphQueueBacklogGrowing: 'unknown',
    });
    expect(
      levels({ serverErrors: { '/v1/owners/:ownerId/recall': 2 } }).KeepGraphServerErrors,
    ).toBe('critical');
    expect(
      levels({ queues: [{ name: 'reflect', waiting: T.queueWaiting + 1 }] })
        .KeepGraphQueueBacklogGrowing,
    ).toBe('warning');
  });

  it('count 5xx answers by route from the exposition', () => {
    const text = [
      '# TYPE keepgraph_http_requests_total counter',
      'keepgraph_http_requests_total{route="/v1/owners/:ownerId/recall",method="POST",status="200"} 40',
      'keepgraph_http_requests_total{route="/v1/owners/:ownerId/recall",method="POST",status="503"} 2',
      'keepgraph_http_requests_total{route="/healthz",method="GET",status="500"} 1',
      'keepgraph_http_request_duration_seconds_count{route="/healthz",method="GET",status="500"} 1',
    ].join('\n');
    expect(serverErrorsIn(text)).toEqual({ '/v1/owners/:ownerId/recall': 2, '/healthz': 1 });
  });
});
