// Owner overview: the warning signs (the alert rules' signs, read from what
// the API answers now), what is held (by kind and authority), the four
// governance KPIs with their history, what expires soon and which claims
// conflict.
import { useMemo } from 'preact/hooks';
import { operatorGet, queueFigures, useLoad, useSession, type Session } from '../api.ts';
import { Bars, TimeChart, type Series } from '../components/chart.tsx';
import { AUTHORITY_COLOURS, AUTHORITY_LABELS, MemoryCard } from '../components/memory-bits.tsx';
import { duration, share } from '../format.ts';
import { serverErrorsIn, warningSigns, type Sign } from '../warning-signs.ts';

const WEEK_MS = 7 * 86_400_000;

export function Overview({ owner }: { owner: string }) {
  const { client } = useSession();
  const kpis = useLoad(() => client.kpis({ ownerId: owner }), [owner]);
  const expiring = useLoad(
    () =>
      client.listMemories(owner, {
        filter: { expiresBefore: new Date(Date.now() + WEEK_MS).toISOString() },
        limit: 20,
      }),
    [owner],
  );
  const conflicts = useLoad(
    () => client.listMemories(owner, { filter: { conflict: true }, limit: 20 }),
    [owner],
  );
  const operatorFigures = useOperatorFigures();
  const k = kpis.data;
  const signs = useMemo(
    () =>
      k
        ? warningSigns({
            kpis: k,
            queues: operatorFigures.data?.queues ?? null,
            serverErrors: operatorFigures.data?.serverErrors ?? null,
            now: new Date(),
          })
        : null,
    [k, operatorFigures.data],
  );
  const chart = useMemo(() => {
    const rows = k?.series ?? [];
    const series: Series[] = [
      { label: 'writes', colour: '#1f78b4', values: rows.map((r) => r.writes) },
      { label: 'refusals', colour: '#d7191c', values: rows.map((r) => r.refusals) },
      { label: 'deletions', colour: '#6a3d9a', values: rows.map((r) => r.deletions) },
      { label: 'expired', colour: '#e6730b', values: rows.map((r) => r.expired) },
      {
        label: 'expired on schedule',
        colour: '#33a02c',
        values: rows.map((r) => r.onScheduleShare),
        share: true,
      },
    ];
    return { days: rows.map((r) => r.day), series };
  }, [k]);

  return (
    <div class="view overview">
      <h1>Owner {owner}</h1>
      {kpis.error ? (
        <p class="error" role="alert">
          {kpis.error}
        </p>
      ) : null}
      {kpis.loading && !k ? <p role="status">Loading figures…</p> : null}
      {signs ? <WarningSigns signs={signs} /> : null}
      {k ? (
        <>
          <section class="kpis" aria-label="Governance figures">
            <Kpi label="Memories held" value={String(k.memories)} />
            <Kpi
              label="Share attributed"
              value={share(k.attributedShare)}
              hint="origin, authority, time and expiry"
            />
            <Kpi label="Median age" value={duration(k.medianAgeMs)} />
            <Kpi
              label="Deletion propagation"
              value={duration(k.deletionPropagation.p50Ms)}
              hint={`median of ${k.deletionPropagation.count} deletions; max ${duration(k.deletionPropagation.maxMs)}`}
            />
            <Kpi
              label="Expirations on schedule"
              value={share(k.expiry.onScheduleShare)}
              hint={`${k.expiry.purged} purged; lag p50 ${duration(k.expiry.lagP50Ms)}`}
            />
            <Kpi
              label="Refusals"
              value={String(Object.values(k.refusals).reduce((a, b) => a + b, 0))}
            />
          </section>
          <TimeChart
            title="Activity and expiry by day (UTC)"
            days={chart.days}
            series={chart.series}
          />
          <div class="two">
            <Bars title="Memories by kind" counts={k.byKind} />
            <Bars
              title="Memories by authority"
              counts={k.byAuthority}
              colours={AUTHORITY_COLOURS}
              labels={AUTHORITY_LABELS}
            />
          </div>
        </>
      ) : null}
      <div class="two">
        <section aria-labelledby="expiring-h">
          <h2 id="expiring-h">Expiring within a week</h2>
          {expiring.error ? <p class="error">{expiring.error}</p> : null}
          {expiring.data?.memories.length === 0 ? (
            <p class="empty">Nothing expires this week.</p>
          ) : null}
          {expiring.data?.memories.map((m) => (
            <MemoryCard memory={m} owner={owner} />
          ))}
        </section>
        <section aria-labelledby="conflicts-h">
          <h2 id="conflicts-h">Flagged conflicts</h2>
          {conflicts.error ? <p class="error">{conflicts.error}</p> : null}
          {conflicts.data?.memories.length === 0 ? (
            <p class="empty">No conflicting claims.</p>
          ) : null}
          {conflicts.data?.memories.map((m) => (
            <MemoryCard memory={m} owner={owner} />
          ))}
        </section>
      </div>
    </div>
  );
}

function Kpi({ label, value, hint }: { label: string; value: string; hint?: string }) {
  return (
    <div class="card kpi">
      <div class="kpi-label">{label}</div>
      <div class="kpi-value">{value}</div>
      {hint ? <div class="small muted">{hint}</div> : null}
    </div>
  );
}

/**
 * What only an operator reads: jobs waiting by queue (null without a job
 * runner) and 5xx answers by route from /metrics. Null for other roles.
 */
function useOperatorFigures() {
  const { apiKey, who } = useSession();
  return useLoad(who.role === 'operator' ? () => operatorFigures(apiKey) : null, []);
}

async function operatorFigures(apiKey: Session['apiKey']) {
  const [q, metrics] = await Promise.all([
    queueFigures(apiKey),
    operatorGet(apiKey, '/metrics').then((r) => r.text()),
  ]);
  return { queues: q.configured ? q.queues : null, serverErrors: serverErrorsIn(metrics) };
}

const LEVEL_WORDS = { ok: 'OK', warning: 'Warning', critical: 'Critical', unknown: 'Not read' };

function WarningSigns({ signs }: { signs: Sign[] }) {
  const raised = signs.filter((s) => s.level === 'warning' || s.level === 'critical').length;
  return (
    <section class="signs" aria-labelledby="signs-h">
      <h2 id="signs-h">
        Warning signs{' '}
        <span class="small muted">{raised === 0 ? 'none raised' : `${raised} raised`}</span>
      </h2>
      <ul>
        {signs.map((s) => (
          <li class={`sign sign-${s.level}`} data-alert={s.alert} title={s.alert}>
            <strong>{s.title}</strong> <span class="sign-level">{LEVEL_WORDS[s.level]}</span>
            <div class="small muted">{s.detail}</div>
          </li>
        ))}
      </ul>
    </section>
  );
}
