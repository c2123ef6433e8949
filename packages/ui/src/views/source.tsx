// Source view: everything that came from one URL, document, tool or session,
// and revoking it: a dry run first lists what the cascade would delete
// (the source's memories and everything derived from them), then the
// deletion and its receipt. Keys that may not delete see no button, and the
// server refuses them anyway.
import { useState } from 'preact/hooks';
import type { MemoryFilter } from '@keepgraph/core';
import { describeError, mayDelete, useLoad, useSession } from '../api.ts';
import { AuthorityBadge, KindBadge, MemoryCard } from '../components/memory-bits.tsx';
import { navigate } from '../router.ts';
import { when } from '../format.ts';

const KINDS = ['url', 'document', 'tool', 'session'] as const;
type SourceKind = (typeof KINDS)[number];

interface Preview {
  memoryIds: string[];
  memories: { id: string; kind: string; authority: string; text: string; derived: boolean }[];
  sessionMessages?: number;
}

interface Receipt {
  deletedMemoryIds: string[];
  embeddingsDeleted: number;
  fullTextEntriesDeleted: number;
  relationEdgesDeleted: number;
  sessionMessagesDeleted: number;
  at: string;
}

function filterFor(kind: SourceKind, value: string): Partial<MemoryFilter> {
  if (kind === 'session') return { sessionId: value };
  if (kind === 'tool') return { tool: value };
  return { sourceUri: value };
}

export function SourceView({ owner, params }: { owner: string; params: URLSearchParams }) {
  const { client, who } = useSession();
  const kind = (KINDS as readonly string[]).includes(params.get('kind') ?? '')
    ? (params.get('kind') as SourceKind)
    : 'url';
  const value = params.get('value') ?? '';
  const [form, setForm] = useState({ kind, value });
  const [preview, setPreview] = useState<Preview | null>(null);
  const [receipt, setReceipt] = useState<Receipt | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const listed = useLoad(
    value ? () => client.listMemories(owner, { filter: filterFor(kind, value), limit: 200 }) : null,
    [owner, kind, value, receipt],
  );

  const run = async (dryRun: boolean) => {
    setBusy(true);
    setError(null);
    try {
      if (kind === 'session') {
        const r = await client.forgetSession(owner, value, { dryRun });
        if (dryRun) {
          const details = await Promise.all(
            r.memoryIds.slice(0, 500).map((id) => client.get(owner, id).catch(() => null)),
          );
          setPreview({
            memoryIds: r.memoryIds,
            sessionMessages: r.sessionMessages,
            memories: details
              .filter((m) => m !== null)
              .map((m) => ({
                id: m.id,
                kind: m.kind,
                authority: m.authority,
                text: m.text,
                derived: !r.observed.includes(m.id),
              })),
          });
        } else {
          setPreview(null);
          setReceipt(
            r.receipt ?? {
              deletedMemoryIds: [],
              embeddingsDeleted: 0,
              fullTextEntriesDeleted: 0,
              relationEdgesDeleted: 0,
              sessionMessagesDeleted: r.sessionMessages,
              at: new Date().toISOString(),
            },
          );
        }
      } else {
        const source = kind === 'tool' ? { tool: value } : { uri: value };
        if (dryRun) setPreview(await client.revokeSource(owner, source, { dryRun: true }));
        else {
          setPreview(null);
          setReceipt(await client.revokeSource(owner, source));
        }
      }
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="view source">
      <h1>Sources</h1>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          setPreview(null);
          setReceipt(null);
          navigate('source', { owner, kind: form.kind, value: form.value.trim() });
        }}
      >
        <label for="source-kind">Kind</label>
        <select
          id="source-kind"
          value={form.kind}
          onChange={(e) => setForm({ ...form, kind: e.currentTarget.value as SourceKind })}
        >
          {KINDS.map((k) => (
            <option value={k}>{k}</option>
          ))}
        </select>
        <label for="source-value">
          {form.kind === 'session' ? 'Session id' : form.kind === 'tool' ? 'Tool name' : 'URI'}
        </label>
        <input
          id="source-value"
          value={form.value}
          onInput={(e) => setForm({ ...form, value: e.currentTarget.value })}
        />
        <button type="submit">Show</button>
      </form>
      {value ? (
        <>
          <h2>
            From {kind} <span class="mono">{value}</span>
          </h2>
          {listed.error ? <p class="error">{listed.error}</p> : null}
          {listed.data ? (
            <p role="status" data-testid="source-count">
              {listed.data.memories.length} memor{listed.data.memories.length === 1 ? 'y' : 'ies'}{' '}
              held from this {kind}
            </p>
          ) : null}
          {mayDelete(who) ? (
            <div class="toolbar">
              <button type="button" class="danger" disabled={busy} onClick={() => run(true)}>
                Revoke this {kind}…
              </button>
            </div>
          ) : (
            <p class="note" data-testid="read-only">
              Your role ({who.role}) reads but does not delete: revoking needs a user or operator
              key.
            </p>
          )}
          {error ? (
            <p class="error" role="alert">
              {error}
            </p>
          ) : null}
          {preview ? (
            <section class="card preview" aria-labelledby="preview-h">
              <h3 id="preview-h">Dry run: revoking deletes {preview.memoryIds.length} memories</h3>
              <p>
                The memories from this {kind} and every memory derived from them, with their
                vectors, full-text entries, relations and cached answers
                {preview.sessionMessages ? `, and ${preview.sessionMessages} session messages` : ''}
                . Nothing has been deleted yet.
              </p>
              <ul class="plain">
                {preview.memories.map((m) => (
                  <li data-preview-id={m.id}>
                    <KindBadge kind={m.kind} /> <AuthorityBadge authority={m.authority} />
                    {m.derived ? <span class="badge">derived</span> : null} {m.text}
                  </li>
                ))}
              </ul>
              <div class="toolbar">
                <button type="button" class="danger" disabled={busy} onClick={() => run(false)}>
                  Delete {preview.memoryIds.length} memories
                </button>
                <button type="button" onClick={() => setPreview(null)}>
                  Cancel
                </button>
              </div>
            </section>
          ) : null}
          {receipt ? (
            <section class="card receipt" aria-labelledby="receipt-h" role="status">
              <h3 id="receipt-h">Deletion receipt</h3>
              <dl class="grid">
                <dt>memories deleted</dt>
                <dd data-testid="receipt-deleted">{receipt.deletedMemoryIds.length}</dd>
                <dt>embeddings</dt>
                <dd>{receipt.embeddingsDeleted}</dd>
                <dt>full-text entries</dt>
                <dd>{receipt.fullTextEntriesDeleted}</dd>
                <dt>relation edges</dt>
                <dd>{receipt.relationEdgesDeleted}</dd>
                <dt>session messages</dt>
                <dd>{receipt.sessionMessagesDeleted}</dd>
                <dt>at</dt>
                <dd>{when(receipt.at)}</dd>
              </dl>
            </section>
          ) : null}
          {listed.data?.memories.map((m) => (
            <MemoryCard memory={m} owner={owner} />
          ))}
        </>
      ) : (
        <p class="empty">Name a URL, document, tool or session to see what came from it.</p>
      )}
    </div>
  );
}
