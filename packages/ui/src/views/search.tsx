// Search: a recall as an agent would make it, with each result's origin,
// authority, expiry and how its score was made; filters narrow the
// candidates the searches found (as the API documents).
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { Authority, MemoryFilter, MemoryKind } from '@keepgraph/core';
import { useLoad, useSession } from '../api.ts';
import { MemoryCard } from '../components/memory-bits.tsx';
import { navigate } from '../router.ts';

// Every kind and authority, checked against core's types (a new one fails
// the type check here) without bundling core into the page.
const KINDS = Object.keys({
  episode: 1,
  fact: 1,
  preference: 1,
  constraint: 1,
  goal: 1,
  rule: 1,
  summary: 1,
  profile: 1,
  kv: 1,
} satisfies Record<MemoryKind, 1>) as MemoryKind[];
const AUTHORITIES = Object.keys({
  operator: 1,
  user: 1,
  tool: 1,
  agent_inferred: 1,
  third_party: 1,
} satisfies Record<Authority, 1>) as Authority[];

/** The filters typed as text: the route's parameter, its label, the filter's field. */
const TEXT_FILTERS = [
  { param: 'session', label: 'Session', filter: 'sessionId' },
  { param: 'tool', label: 'Tool', filter: 'tool' },
  { param: 'url', label: 'URL or document', filter: 'sourceUri' },
] as const satisfies readonly { param: string; label: string; filter: keyof MemoryFilter }[];

/** The recall filter the route's parameters name. */
function filterOf(params: URLSearchParams): Partial<MemoryFilter> {
  const filter: Partial<MemoryFilter> = {};
  const kind = params.get('kind');
  const authority = params.get('authority');
  if (kind && (KINDS as string[]).includes(kind)) filter.kinds = [kind as MemoryKind];
  if (authority && (AUTHORITIES as string[]).includes(authority))
    filter.authorities = [authority as Authority];
  for (const t of TEXT_FILTERS) {
    const value = params.get(t.param);
    if (value) filter[t.filter] = value;
  }
  return filter;
}

/** A labelled form field; its control's id is `f-<name>` (the `field` props give it). */
function Field(p: { name: string; label: string; wide?: boolean; children: ComponentChildren }) {
  return (
    <div class={p.wide ? 'field wide' : 'field'}>
      <label for={`f-${p.name}`}>{p.label}</label>
      {p.children}
    </div>
  );
}

export function Search({ owner, params }: { owner: string; params: URLSearchParams }) {
  const { client } = useSession();
  const q = params.get('q') ?? '';
  const found = useLoad(q ? () => client.why(owner, q, { filter: filterOf(params) }) : null, [
    owner,
    params.toString(),
  ]);
  const [form, setForm] = useState(() => Object.fromEntries(params));
  const field = (name: string) => ({
    id: `f-${name}`,
    name,
    value: form[name] ?? '',
    onInput: (e: { currentTarget: { value: string } }) =>
      setForm({ ...form, [name]: e.currentTarget.value }),
  });
  /** A choice of `values`, or any, bound to the field `name`. */
  const anyOf = (name: string, values: readonly string[]) => (
    <select {...field(name)}>
      <option value="">any</option>
      {values.map((v) => (
        <option value={v}>{v}</option>
      ))}
    </select>
  );

  return (
    <div class="view search">
      <h1>Search {owner}'s memories</h1>
      <form
        class="search-form"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          navigate('search', { ...form, owner });
        }}
      >
        <Field name="q" label="Query" wide>
          <input type="search" {...field('q')} placeholder="what does the agent believe about…" />
        </Field>
        <Field name="kind" label="Kind">
          {anyOf('kind', KINDS)}
        </Field>
        <Field name="authority" label="Authority">
          {anyOf('authority', AUTHORITIES)}
        </Field>
        {TEXT_FILTERS.map((t) => (
          <Field name={t.param} label={t.label}>
            <input {...field(t.param)} />
          </Field>
        ))}
        <button type="submit">Search</button>
      </form>
      {found.error ? (
        <p class="error" role="alert">
          {found.error}
        </p>
      ) : null}
      {found.loading ? <p role="status">Searching…</p> : null}
      {found.data ? (
        <section aria-label="Results">
          <p class="muted" role="status">
            {found.data.results.length} result{found.data.results.length === 1 ? '' : 's'} (request{' '}
            {found.data.requestId})
          </p>
          {found.data.results.map((r) => (
            <MemoryCard memory={r.memory} owner={owner}>
              <details class="breakdown">
                <summary>
                  score {r.score.toFixed(3)}
                  {r.via.length > 0
                    ? ` · reached through ${r.via.length} derived memor${r.via.length === 1 ? 'y' : 'ies'}`
                    : ''}
                </summary>
                <dl class="grid">
                  <dt>fused rank score</dt>
                  <dd>{r.breakdown.fused.toFixed(4)}</dd>
                  <dt>authority</dt>
                  <dd>× {r.breakdown.authority.toFixed(2)}</dd>
                  <dt>recency</dt>
                  <dd>× {r.breakdown.recency.toFixed(2)}</dd>
                  <dt>confidence</dt>
                  <dd>× {r.breakdown.confidence.toFixed(2)}</dd>
                  {Object.entries(r.breakdown.ranks).map(([name, rank]) => (
                    <>
                      <dt>{name} rank</dt>
                      <dd>
                        {rank}
                        {r.breakdown.raw[name as keyof typeof r.breakdown.raw] !== undefined
                          ? ` (raw ${Number(r.breakdown.raw[name as keyof typeof r.breakdown.raw]).toFixed(3)})`
                          : ''}
                      </dd>
                    </>
                  ))}
                </dl>
              </details>
            </MemoryCard>
          ))}
        </section>
      ) : null}
    </div>
  );
}
