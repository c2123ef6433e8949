// How a memory shows anywhere in the app: its text as quoted data (never
// as markup or instructions), its kind and authority, where it came from
// and when it expires.
import type { ComponentChildren } from 'preact';
import type { Memory, Origin } from '@keepgraph/core';
import { href } from '../router.ts';
import { until, when } from '../format.ts';

export const AUTHORITY_COLOURS: Record<string, string> = {
  operator: '#6a3d9a',
  user: '#1f78b4',
  tool: '#33a02c',
  agent_inferred: '#e6730b',
  third_party: '#d7191c',
};

export const AUTHORITY_LABELS: Record<string, string> = {
  operator: 'operator',
  user: 'user',
  tool: 'tool',
  agent_inferred: 'agent-inferred',
  third_party: 'third party',
};

export function AuthorityBadge({ authority }: { authority: string }) {
  return (
    <span class="badge" style={{ borderColor: AUTHORITY_COLOURS[authority] ?? '#555' }}>
      <span
        class="dot"
        style={{ background: AUTHORITY_COLOURS[authority] ?? '#555' }}
        aria-hidden="true"
      />
      {AUTHORITY_LABELS[authority] ?? authority}
    </span>
  );
}

export function KindBadge({ kind }: { kind: string }) {
  return <span class="badge kind">{kind}</span>;
}

/** The origin's parts, each a link to the source view of that session, tool or URL. */
export function OriginLine({ origin, owner }: { origin: Origin; owner: string }) {
  const parts = [];
  if (origin.sessionId)
    parts.push(
      <a href={href('source', { owner, kind: 'session', value: origin.sessionId })}>
        session {origin.sessionId}
        {origin.turn ? ` · turn ${origin.turn}` : ''}
      </a>,
    );
  if (origin.tool)
    parts.push(
      <a href={href('source', { owner, kind: 'tool', value: origin.tool.name })}>
        tool {origin.tool.name}
      </a>,
    );
  if (origin.source)
    parts.push(
      <a href={href('source', { owner, kind: origin.source.kind, value: origin.source.uri })}>
        {origin.source.kind} {origin.source.uri}
      </a>,
    );
  if (origin.extractor) parts.push(<span>extracted by {origin.extractor.name}</span>);
  return (
    <span class="origin">
      {parts.map((p, i) => (
        <span key={i}>
          {i > 0 ? ' · ' : ''}
          {p}
        </span>
      ))}
      {parts.length > 0 ? ' · ' : ''}
      written by {origin.writtenBy}, observed {when(origin.observedAt)}
    </span>
  );
}

/** A memory in a list: text, kind, authority, origin, expiry, links to its graph and reads. */
export function MemoryCard({
  memory,
  owner,
  children,
}: {
  memory: Memory;
  owner: string;
  children?: ComponentChildren;
}) {
  return (
    <article class="card memory" data-memory-id={memory.id}>
      <header>
        <KindBadge kind={memory.kind} />
        <AuthorityBadge authority={memory.authority} />
        {memory.conflict ? <span class="badge warn">conflict</span> : null}
        {memory.supersededBy ? <span class="badge">superseded</span> : null}
        <span class="muted">expires {until(memory.expiresAt)}</span>
      </header>
      <blockquote class="memory-text">{memory.text}</blockquote>
      <p class="small">
        <OriginLine origin={memory.origin} owner={owner} />
      </p>
      <nav class="links small" aria-label="About this memory">
        <a href={href('graph', { owner, id: memory.id })}>Provenance graph</a>
        <a href={href('reads', { owner, id: memory.id })}>Who read it</a>
        <span class="muted">id {memory.id}</span>
      </nav>
      {children}
    </article>
  );
}
