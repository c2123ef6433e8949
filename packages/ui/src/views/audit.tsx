// Audit: the timeline of writes, refusals, deletions and expiries, newest
// first, with the hash chain's verification and the deletion receipts
// (what each deletion removed, as counts; the log holds no text).
import { useMemo, useState } from 'preact/hooks';
import type { AuditEvent } from '@keepgraph/core';
import { useLoad, useSession } from '../api.ts';
import { when } from '../format.ts';
import { Table } from '../components/table.tsx';

/** The most events the page reads (newest kept): enough for a session of looking. */
const MAX_EVENTS = 20_000;
const PAGE = 100;
const DELETIONS = new Set([
  'delete',
  'expire',
  'evict',
  'revoke_source',
  'forget_owner',
  'corrected',
]);

export function Audit({ owner }: { owner: string | null }) {
  const { client, who } = useSession();
  const scoped = who.owners !== 'all';
  const events = useLoad(async () => {
    if (scoped && !owner) return [];
    const all: AuditEvent[] = [];
    let afterSeq = 0;
    for (;;) {
      const page = await client.auditList({
        ...(owner ? { ownerId: owner } : {}),
        afterSeq,
        limit: 1000,
      });
      if (page.length === 0) break;
      all.push(...page);
      if (all.length > MAX_EVENTS) all.splice(0, all.length - MAX_EVENTS);
      afterSeq = page[page.length - 1]!.seq;
    }
    return all.reverse();
  }, [owner]);
  const verify = useLoad(who.role === 'operator' ? () => client.auditVerify() : null, []);
  const [type, setType] = useState('');
  const [page, setPage] = useState(0);
  const types = useMemo(
    () => [...new Set((events.data ?? []).map((e) => e.type))].sort(),
    [events.data],
  );
  const shown = (events.data ?? []).filter((e) => !type || e.type === type);

  return (
    <div class="view audit">
      <h1>Audit {owner ? `of ${owner}` : 'of every owner'}</h1>
      <section class="card" aria-label="Chain verification" data-testid="chain-status">
        {who.role !== 'operator' ? (
          <p>
            The hash chain is verified over every owner's events: an operator key sees its status
            here.
          </p>
        ) : verify.data ? (
          verify.data.ok ? (
            <p class="ok">Chain verified: {verify.data.checked} events, every link intact.</p>
          ) : (
            <p class="error">
              Chain broken at event {verify.data.brokenAt} ({verify.data.problem}) after{' '}
              {verify.data.checked} checked.
            </p>
          )
        ) : verify.error ? (
          <p class="error">{verify.error}</p>
        ) : (
          <p role="status">Verifying the chain…</p>
        )}
      </section>
      {events.error ? (
        <p class="error" role="alert">
          {events.error}
        </p>
      ) : null}
      {scoped && !owner ? (
        <p class="empty">Choose one of your owners to read its audit log.</p>
      ) : null}
      <div class="toolbar">
        <label for="audit-type">Event type</label>
        <select
          id="audit-type"
          value={type}
          onChange={(e) => {
            setType(e.currentTarget.value);
            setPage(0);
          }}
        >
          <option value="">all</option>
          {types.map((t) => (
            <option value={t}>{t}</option>
          ))}
        </select>
        <span class="muted" role="status">
          {shown.length} events
        </span>
      </div>
      <Table
        label="Audit events"
        head={['#', 'When', 'Type', 'Actor', 'Owner', 'Reason', 'Memories', 'Receipt']}
      >
        {shown.slice(page * PAGE, (page + 1) * PAGE).map((e) => (
          <tr data-type={e.type}>
            <td>{e.seq}</td>
            <td>{when(e.at)}</td>
            <td>{e.type}</td>
            <td>
              {e.actor} ({e.role})
            </td>
            <td>{e.ownerId ?? '—'}</td>
            <td>{e.reason ?? ''}</td>
            <td>{e.memoryIds.length}</td>
            <td>{DELETIONS.has(e.type) ? <ReceiptFigures details={e.details} /> : null}</td>
          </tr>
        ))}
      </Table>
      <nav class="pager" aria-label="Audit pages">
        <button type="button" disabled={page === 0} onClick={() => setPage(page - 1)}>
          Newer
        </button>
        <span>
          page {page + 1} of {Math.max(1, Math.ceil(shown.length / PAGE))}
        </span>
        <button
          type="button"
          disabled={(page + 1) * PAGE >= shown.length}
          onClick={() => setPage(page + 1)}
        >
          Older
        </button>
      </nav>
    </div>
  );
}

function ReceiptFigures({ details }: { details: Record<string, unknown> }) {
  const figures = Object.entries(details).filter(([, v]) => typeof v === 'number');
  const nested =
    details.details && typeof details.details === 'object'
      ? Object.entries(details.details as Record<string, unknown>).filter(
          ([, v]) => typeof v === 'number',
        )
      : [];
  const all = [...figures, ...nested];
  if (all.length === 0) return null;
  return (
    <details>
      <summary>receipt</summary>
      <dl class="grid small">
        {all.map(([k, v]) => (
          <>
            <dt>{k}</dt>
            <dd>{String(v)}</dd>
          </>
        ))}
      </dl>
    </details>
  );
}
