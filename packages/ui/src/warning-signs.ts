// The warning signs of a memory engine going wrong, as the overview shows
// them: the same signs, with the same thresholds, as the Prometheus alert
// rules shipped in docs/prometheus-alerts.yml (test/e2e/alert-rules.test.ts
// holds the two to one set of numbers: SIGN_THRESHOLDS). The rules read
// Prometheus's series over sliding windows; the page reads what the API
// answers now: the KPIs (the audit log's figures, by UTC day), the queues
// and the /metrics exposition, the last two for operators only.
import type { Out } from '@keepgraph/client';

type Kpis = Out<'kpis'>;

export const SIGN_THRESHOLDS = {
  /** Memories only get older: no deletion for a week, the median age grown past this share of it. */
  ageingShareOfWeek: 0.8,
  /** Expiry late: the median purge later than its scheduled time by more than this. */
  expiryLagSeconds: 60,
  /** Refusal spike: more than this share of writes refused… */
  refusalShare: 0.2,
  /** …and more than this many refusals. */
  refusalCount: 20,
  /** Queue backlog: more than this many jobs waiting on one queue. */
  queueWaiting: 100,
} as const;

export type SignLevel = 'ok' | 'warning' | 'critical' | 'unknown';

export interface Sign {
  /** The alert rule's name. */
  alert: string;
  title: string;
  level: SignLevel;
  /** What was read, in words. */
  detail: string;
}

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;

/** The figures the signs read; `queues` and `serverErrors` are null where the caller may not read them. */
export interface SignInputs {
  kpis: Kpis;
  /** Jobs waiting, by queue (GET /v1/queues); null: not an operator, or no job runner. */
  queues: { name: string; waiting: number }[] | null;
  /** 5xx answers since the server started, by route (GET /metrics); null: not an operator. */
  serverErrors: Record<string, number> | null;
  now: Date;
}

/** The last `days` UTC days of the KPI series (days without events have no row). */
function lastDays(kpis: Kpis, now: Date, days: number) {
  const from = new Date(now.getTime() - (days - 1) * DAY_MS).toISOString().slice(0, 10);
  return kpis.series.filter((d) => d.day >= from);
}

export function warningSigns({ kpis, queues, serverErrors, now }: SignInputs): Sign[] {
  const t = SIGN_THRESHOLDS;
  const week = lastDays(kpis, now, 7);
  const deletedThisWeek = week.reduce((n, d) => n + d.deletions, 0);
  const ageing =
    kpis.memories > 0 &&
    deletedThisWeek === 0 &&
    kpis.medianAgeMs !== null &&
    kpis.medianAgeMs > t.ageingShareOfWeek * WEEK_MS;

  const lagMs = kpis.expiry.lagP50Ms;
  const today = lastDays(kpis, now, 1)[0];
  const refused = today?.refusals ?? 0;
  const refusedShare = today ? refused / Math.max(1, refused + today.writes) : 0;

  const backlog = (queues ?? []).filter((q) => q.waiting > t.queueWaiting);
  const errorRoutes = Object.entries(serverErrors ?? {}).filter(([, n]) => n > 0);
  const errors = errorRoutes.reduce((n, [, c]) => n + c, 0);

  return [
    {
      alert: 'KeepGraphMemoriesAgeWithoutDeletions',
      title: 'Memories only get older',
      level: ageing ? 'warning' : 'ok',
      detail:
        kpis.medianAgeMs === null
          ? 'no memories held'
          : `${deletedThisWeek} deletions in the last 7 days; median age ${Math.round(kpis.medianAgeMs / DAY_MS)} days`,
    },
    {
      alert: 'KeepGraphExpiryLate',
      title: 'Expiry late',
      level: lagMs !== null && lagMs > t.expiryLagSeconds * 1000 ? 'warning' : 'ok',
      detail:
        lagMs === null
          ? 'nothing has expired yet'
          : `median purge ${Math.round(lagMs / 1000)} s after the scheduled expiry`,
    },
    {
      alert: 'KeepGraphRefusalSpike',
      title: 'Refusal spike',
      level: refusedShare > t.refusalShare && refused > t.refusalCount ? 'warning' : 'ok',
      detail: `${refused} writes refused today, ${Math.round(refusedShare * 100)}% of writes`,
    },
    {
      alert: 'KeepGraphServerErrors',
      title: 'Server errors',
      level: serverErrors === null ? 'unknown' : errors > 0 ? 'critical' : 'ok',
      detail:
        serverErrors === null
          ? 'read with an operator key'
          : errors > 0
            ? `${errors} 5xx answers since the server started (${errorRoutes.map(([r]) => r).join(', ')})`
            : 'no 5xx answer since the server started',
    },
    {
      alert: 'KeepGraphQueueBacklogGrowing',
      title: 'Queue backlog',
      level: queues === null ? 'unknown' : backlog.length > 0 ? 'warning' : 'ok',
      detail:
        queues === null
          ? 'read with an operator key, on a server with a job runner'
          : backlog.length > 0
            ? backlog.map((q) => `${q.waiting} jobs waiting on ${q.name}`).join('; ')
            : `at most ${t.queueWaiting} jobs waiting on each queue`,
    },
  ];
}

/**
 * 5xx answers by route from a Prometheus text exposition: the
 * `keepgraph_http_requests_total` samples whose status is 5xx.
 */
export function serverErrorsIn(exposition: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of exposition.split('\n')) {
    if (!line.startsWith('keepgraph_http_requests_total{')) continue;
    const labels = line.slice(line.indexOf('{') + 1, line.lastIndexOf('}'));
    const status = /(?:^|,)status="(\d+)"/.exec(labels)?.[1];
    const route = /(?:^|,)route="([^"]*)"/.exec(labels)?.[1] ?? '(unknown)';
    if (!status?.startsWith('5')) continue;
    out[route] = (out[route] ?? 0) + Number(line.slice(line.lastIndexOf('}') + 1).trim());
  }
  return out;
}
