// Human-readable renderings of engine results. JSON output never goes
// through here: `--json` prints what the engine returned, unchanged.
import type {
  AuditEvent,
  DeletionPreview,
  ExpiryRun,
  ForgottenCheck,
  Kpis,
  OriginInput,
  ReadRecord,
  RecallHit,
  SerializedGraph,
} from '@keepgraph/core';
import type { DeletionReceipt } from '@keepgraph/core/ports';

/** Origin in one short bracket: session, turn, source, tool, extractor. */
export function formatOrigin(o: OriginInput & { writtenBy?: string }): string {
  const parts: string[] = [];
  if (o.sessionId) parts.push(`session ${o.sessionId}`);
  if (o.turn) parts.push(`turn ${o.turn}`);
  if (o.messageId) parts.push(`message ${o.messageId}`);
  if (o.source) parts.push(`${o.source.kind} ${o.source.uri}`);
  if (o.tool) parts.push(`tool ${o.tool.name}${o.tool.callId ? `#${o.tool.callId}` : ''}`);
  if (o.extractor) parts.push(`extractor ${o.extractor.name}@${o.extractor.version}`);
  return `[${parts.join(', ') || 'no origin'}]`;
}

/** Collapse whitespace so one memory stays on one line. */
export function oneLine(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** `1. 0.873 fact user [session s1, turn 3] text (id …)`, with `via …` when a derived memory led to it. */
export function formatHit(hit: RecallHit, n: number): string {
  const m = hit.memory;
  const flags = [m.conflict ? 'conflict' : '', hit.authority === 'third_party' ? 'untrusted' : '']
    .filter(Boolean)
    .map((f) => ` !${f}`)
    .join('');
  const via = hit.via.length ? ` via ${hit.via.join(', ')}` : '';
  return `${n}. ${hit.score.toFixed(3)} ${m.kind} ${hit.authority}${flags} ${formatOrigin(hit.origin)} ${oneLine(m.text)} (id ${m.id}${via})`;
}

/**
 * The derivation tree of one recall hit, from the hit down to its episodes,
 * drawn from the lineage graph (edges point from derived to source). A node
 * reachable twice in the DAG is drawn twice; a cycle, which the engine never
 * writes, is cut rather than looped.
 */
export function formatLineage(graph: SerializedGraph, rootId: string, indent = '   '): string[] {
  const nodes = new Map(graph.nodes.map((n) => [n.key, n.attributes]));
  const children = new Map<string, string[]>();
  for (const e of graph.edges)
    children.set(e.source, [...(children.get(e.source) ?? []), e.target]);
  const lines: string[] = [];
  const walk = (id: string, prefix: string, onPath: Set<string>): void => {
    const kids = children.get(id) ?? [];
    kids.forEach((kid, i) => {
      const last = i === kids.length - 1;
      const a = nodes.get(kid) ?? {};
      const label = onPath.has(kid)
        ? `${kid} (cycle)`
        : `${String(a.kind)} ${String(a.authority)} ${formatOrigin((a.origin ?? {}) as OriginInput)} ${oneLine(String(a.text ?? ''), 120)} (id ${kid})`;
      lines.push(`${indent}${prefix}${last ? '└─ ' : '├─ '}derived from ${label}`);
      if (!onPath.has(kid))
        walk(kid, `${prefix}${last ? '   ' : '│  '}`, new Set([...onPath, kid]));
    });
  };
  walk(rootId, '', new Set([rootId]));
  if (lines.length === 0) lines.push(`${indent}(not derived: this is where the claim entered)`);
  return lines;
}

/** The counts of a deletion receipt, one line. */
export function formatReceipt(r: DeletionReceipt): string {
  return (
    `deleted ${r.deletedMemoryIds.length} memories (${r.requested.length} requested, ` +
    `${r.deletedMemoryIds.length - r.requested.length} derived) for ${r.ownerId}: ` +
    `embeddings ${r.embeddingsDeleted}, full-text entries ${r.fullTextEntriesDeleted}, ` +
    `relation edges ${r.relationEdgesDeleted}, entities ${r.entitiesDeleted}, ` +
    `session messages ${r.sessionMessagesDeleted}, re-derivations queued ${r.rederive.length}`
  );
}

/** A dry run of forget or revoke-source: what would go, one memory a line (text shortened). */
export function formatPreview(p: DeletionPreview): string[] {
  const derived = p.memoryIds.length - p.memories.filter((m) => !m.derived).length;
  const lines = [
    `would delete ${p.memoryIds.length} memories (${p.requested.length} requested, ${derived} derived) for ${p.ownerId}; nothing deleted:`,
    ...p.memories.map(
      (m) =>
        `  ${m.derived ? 'derived' : 'root'} ${m.kind} ${m.authority} ${oneLine(m.text, 120)} (id ${m.id})`,
    ),
  ];
  const unlisted = p.memoryIds.length - p.memories.length;
  if (unlisted > 0) lines.push(`  … and ${unlisted} more (--json lists every id)`);
  return lines;
}

/** One read of the read log: when, who, which session hash, which memories. */
export function formatRead(r: ReadRecord): string {
  return `${r.at} ${r.principal} session=${r.sessionId ?? '-'} request=${r.requestId} served ${r.memoryIds.join(',')}`;
}

/** The outcome of verifyForgotten, one line per trace left. */
export function formatVerification(v: ForgottenCheck, ids: number, hashes: number): string[] {
  if (v.forgotten)
    return [
      `verified: forgotten (no trace of ${ids} ids or ${hashes} content hashes in any store, index or cache of owner ${v.scope.ownerId})`,
    ];
  return [
    `verified: NOT gone, ${v.traces.length} trace(s) left:`,
    ...v.traces.map(
      (t) => `  ${t.where}${t.id ? ` id ${t.id}` : ''}${t.detail ? `: ${t.detail}` : ''}`,
    ),
  ];
}

/** One audit event per line; ids and hashes abbreviated, never content. */
export function formatAuditEvent(e: AuditEvent): string {
  const ids = e.memoryIds.length ? ` ids=${e.memoryIds.join(',')}` : '';
  const reason = e.reason ? ` reason=${e.reason}` : '';
  return `${e.seq} ${e.at} ${e.type} owner=${e.ownerId ?? '-'} actor=${e.actor}(${e.role})${reason}${ids}`;
}

function counts(rec: Record<string, number>): string {
  const entries = Object.entries(rec).sort(([a], [b]) => a.localeCompare(b));
  return entries.length ? entries.map(([k, v]) => `${k}=${v}`).join(' ') : '-';
}

/** The KPIs as aligned `name: value` lines. */
export function formatKpis(k: Kpis): string[] {
  const pct = (x: number | null) => (x === null ? '-' : `${(x * 100).toFixed(1)}%`);
  const ms = (x: number | null) => (x === null ? '-' : `${x} ms`);
  return [
    `owners:            ${k.owners}`,
    `memories:          ${k.memories}`,
    `attributed:        ${pct(k.attributedShare)}`,
    `median age:        ${ms(k.medianAgeMs)}`,
    `by kind:           ${counts(k.byKind)}`,
    `by authority:      ${counts(k.byAuthority)}`,
    `writes:            ${k.writes}`,
    `reads:             ${k.reads}`,
    `deletions:         ${k.deletions}`,
    `refusals:          ${counts(k.refusals)}`,
    `expired purged:    ${k.expiry.purged}`,
    `expiry on time:    ${pct(k.expiry.onScheduleShare)} (within ${k.expiry.toleranceMs} ms)`,
    `expiry lag:        p50 ${ms(k.expiry.lagP50Ms)}, max ${ms(k.expiry.lagMaxMs)}`,
    `deletion to gone:  p50 ${ms(k.deletionPropagation.p50Ms)}, max ${ms(k.deletionPropagation.maxMs)} (${k.deletionPropagation.count} cascades timed)`,
    `audit events:      ${k.auditEvents}`,
    ...(k.series.length
      ? [
          'by day (UTC):      writes refusals deletions reads expired on-time deletion-p50 (--json: 90 days)',
          ...k.series
            .slice(-14)
            .map(
              (d) =>
                `  ${d.day}       ${d.writes} ${d.refusals} ${d.deletions} ${d.reads} ${d.expired} ${pct(d.onScheduleShare)} ${ms(d.deletionP50Ms)}`,
            ),
        ]
      : []),
  ];
}

/** What one expiry sweep purged. */
export function formatExpiry(r: ExpiryRun): string[] {
  if (r.purged === 0) return ['expired: nothing due'];
  const maxLag = Math.max(...r.lagsMs);
  return [
    `expired: purged ${r.purged} memories of ${r.owners} owner(s), max lag ${maxLag} ms`,
    ...r.receipts.map((x) => `  ${formatReceipt(x)}`),
  ];
}
