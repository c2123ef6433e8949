// Provenance graph: a memory's lineage down to the episodes, sessions and
// sources it came from, and on demand the owner's entity graph (relations
// such as PREFERS_AGAINST with their reasons and asserting memories).
// Click a node for its details; "Expand" adds its neighbours.
import { useEffect, useState } from 'preact/hooks';
import type { Origin } from '@keepgraph/core';
import { describeError, useLoad, useSession } from '../api.ts';
import {
  AUTHORITY_COLOURS,
  AUTHORITY_LABELS,
  AuthorityBadge,
  KindBadge,
  OriginLine,
} from '../components/memory-bits.tsx';
import { GraphCanvas } from '../graph/canvas.tsx';
import {
  EDGE_COLOURS,
  NODE_TYPE_COLOURS,
  graphFrom,
  mergeInto,
  placeNodes,
  type ProvenanceGraph,
} from '../graph/model.ts';
import { href } from '../router.ts';
import { shortId, until, when } from '../format.ts';
import { MemoryIdForm } from '../components/memory-id-form.tsx';
import { Table } from '../components/table.tsx';

export function GraphView({ owner, id }: { owner: string; id: string | null }) {
  if (!id) return <PickMemory owner={owner} />;
  return <Provenance key={`${owner}/${id}`} owner={owner} id={id} />;
}

function PickMemory({ owner }: { owner: string }) {
  const { client } = useSession();
  const derived = useLoad(
    () => client.listMemories(owner, { filter: { derived: true }, limit: 25 }),
    [owner],
  );
  return (
    <div class="view">
      <h1>Provenance graph</h1>
      <MemoryIdForm view="graph" owner={owner} inputId="memory-id" action="Open" />
      <h2>Derived memories of {owner}</h2>
      {derived.error ? <p class="error">{derived.error}</p> : null}
      {derived.data?.memories.length === 0 ? (
        <p class="empty">No derived memories yet (rules, summaries, reflected claims).</p>
      ) : null}
      <ul class="plain">
        {derived.data?.memories.map((m) => (
          <li>
            <KindBadge kind={m.kind} /> <a href={href('graph', { owner, id: m.id })}>{m.text}</a>
          </li>
        ))}
      </ul>
    </div>
  );
}

function Provenance({ owner, id }: { owner: string; id: string }) {
  const { client } = useSession();
  const [startedAt] = useState(() => performance.now());
  const [graph, setGraph] = useState<ProvenanceGraph | null>(null);
  const [version, setVersion] = useState(0);
  const [selected, setSelected] = useState<string | null>(id);
  const [error, setError] = useState<string | null>(null);
  const [entities, setEntities] = useState<'off' | 'loading' | 'on'>('off');
  const [busy, setBusy] = useState(false);
  const [growError, setGrowError] = useState<string | null>(null);

  useEffect(() => {
    client.lineage(owner, id).then(
      (lineage) => {
        const g = graphFrom(lineage as never);
        placeNodes(g, id);
        setGraph(g);
      },
      (e: unknown) => setError(describeError(e)),
    );
  }, [owner, id]);

  const grow = async (load: () => Promise<unknown>, around?: string) => {
    if (!graph) return;
    setBusy(true);
    setGrowError(null);
    try {
      const added = mergeInto(graph, (await load()) as never, around);
      if (added.length > 0) setVersion((v) => v + 1);
    } catch (e) {
      setGrowError(describeError(e));
    } finally {
      setBusy(false);
    }
  };

  if (error)
    return (
      <p class="error" role="alert">
        {error}
      </p>
    );
  if (!graph) return <p role="status">Loading the lineage…</p>;
  const sel = selected && graph.hasNode(selected) ? selected : null;
  return (
    <div class="view graph-view">
      <h1>Provenance of {id}</h1>
      <p class="muted" role="status" data-testid="graph-size">
        {graph.order} nodes, {graph.size} edges{busy ? ' · loading…' : ''}
      </p>
      {growError ? (
        <p class="error" role="alert">
          {growError}
        </p>
      ) : null}
      <div class="toolbar">
        <button
          type="button"
          disabled={entities !== 'off'}
          onClick={async () => {
            setEntities('loading');
            await grow(() => client.entityGraph(owner, { limit: 500 }));
            setEntities('on');
          }}
        >
          {entities === 'on' ? 'Entity graph shown' : "Show the owner's entity graph"}
        </button>
      </div>
      <div class="graph-layout">
        <GraphCanvas
          graph={graph}
          version={version}
          selected={sel}
          onSelect={setSelected}
          startedAt={startedAt}
          label={`Provenance graph of memory ${id}: ${graph.order} nodes. The node list below holds the same.`}
        />
        <aside class="card details" aria-label="Selected node">
          {sel ? (
            <NodeDetails
              graph={graph}
              node={sel}
              owner={owner}
              onExpand={() => grow(() => client.neighbours(owner, sel), sel)}
            />
          ) : (
            <p>Select a node in the graph or the list.</p>
          )}
        </aside>
      </div>
      <Legend />
      <NodeList graph={graph} version={version} onSelect={setSelected} />
      <RelationList graph={graph} version={version} owner={owner} />
    </div>
  );
}

function NodeDetails({
  graph,
  node,
  owner,
  onExpand,
}: {
  graph: ProvenanceGraph;
  node: string;
  owner: string;
  onExpand(): void;
}) {
  const a = graph.getNodeAttributes(node);
  if (a.nodeType === 'memory') {
    return (
      <div data-selected={node}>
        <h2>
          <KindBadge kind={String(a.kind)} /> <AuthorityBadge authority={String(a.authority)} />
        </h2>
        <blockquote class="memory-text">{String(a.text)}</blockquote>
        <p class="small">
          <OriginLine origin={a.origin as Origin} owner={owner} />
        </p>
        <dl class="grid small">
          <dt>id</dt>
          <dd>{node}</dd>
          <dt>created</dt>
          <dd>{when(String(a.createdAt))}</dd>
          <dt>expires</dt>
          <dd>{until(String(a.expiresAt))}</dd>
          {a.supersededBy ? (
            <>
              <dt>superseded by</dt>
              <dd>{String(a.supersededBy)}</dd>
            </>
          ) : null}
          {a.conflict ? (
            <>
              <dt>conflict</dt>
              <dd>kept beside a higher-authority claim</dd>
            </>
          ) : null}
        </dl>
        <div class="links">
          <button type="button" onClick={onExpand}>
            Expand neighbours
          </button>
          <a href={href('reads', { owner, id: node })}>Who read it</a>
          <a href={href('graph', { owner, id: node })}>Centre on it</a>
        </div>
      </div>
    );
  }
  const type = String(a.nodeType);
  const kind =
    type === 'session' ? 'session' : type === 'tool' ? 'tool' : type === 'source' ? 'url' : null;
  return (
    <div data-selected={node}>
      <h2>
        {type}: {String(a.name ?? node)}
      </h2>
      {kind ? (
        <a href={href('source', { owner, kind, value: String(a.name) })}>
          Everything from this {type}
        </a>
      ) : (
        <ul class="plain small">
          {graph.mapEdges(node, (_e, ea, s, t) =>
            ea.reasons ? (
              <li>
                {String(graph.getNodeAttribute(s, 'name') ?? s)} <strong>{String(ea.type)}</strong>{' '}
                {String(graph.getNodeAttribute(t, 'name') ?? t)}
              </li>
            ) : null,
          )}
        </ul>
      )}
    </div>
  );
}

function Legend() {
  return (
    <section class="legend" aria-label="Legend">
      <h2>Legend</h2>
      <ul class="plain">
        {Object.entries(AUTHORITY_COLOURS).map(([k, c]) => (
          <li>
            <span class="swatch" style={{ background: c }} aria-hidden="true" /> memory, authority{' '}
            {AUTHORITY_LABELS[k]}
          </li>
        ))}
        {Object.entries(NODE_TYPE_COLOURS).map(([k, c]) => (
          <li>
            <span class="swatch" style={{ background: c }} aria-hidden="true" /> {k}
          </li>
        ))}
        {Object.entries(EDGE_COLOURS).map(([k, c]) => (
          <li>
            <span class="swatch line" style={{ background: c }} aria-hidden="true" /> {k}
          </li>
        ))}
      </ul>
    </section>
  );
}

const LIST_PAGE = 100;

function NodeList({
  graph,
  version,
  onSelect,
}: {
  graph: ProvenanceGraph;
  version: number;
  onSelect(n: string): void;
}) {
  const [all, setAll] = useState(false);
  const nodes = graph.nodes();
  const shown = all ? nodes : nodes.slice(0, LIST_PAGE);
  return (
    <details class="node-list" data-version={version}>
      <summary>All {nodes.length} nodes as a list</summary>
      <Table label="Nodes" head={['Node', 'Type', 'Authority']}>
        {shown.map((n) => {
          const a = graph.getNodeAttributes(n);
          return (
            <tr>
              <td>
                <button type="button" class="link" onClick={() => onSelect(n)}>
                  {String(a.label ?? n)}
                </button>
              </td>
              <td>{a.nodeType === 'memory' ? String(a.kind) : String(a.nodeType)}</td>
              <td>{a.authority ? AUTHORITY_LABELS[String(a.authority)] : ''}</td>
            </tr>
          );
        })}
      </Table>
      {!all && nodes.length > LIST_PAGE ? (
        <button type="button" onClick={() => setAll(true)}>
          Show all {nodes.length}
        </button>
      ) : null}
    </details>
  );
}

function RelationList({
  graph,
  version,
  owner,
}: {
  graph: ProvenanceGraph;
  version: number;
  owner: string;
}) {
  const rows = graph.filterEdges((_e, a) => Array.isArray(a.reasons));
  if (rows.length === 0) return null;
  return (
    <section aria-labelledby="relations-h" data-version={version}>
      <h2 id="relations-h">Entity relations</h2>
      <Table label="Entity relations" head={['Relation', 'Reasons', 'Asserted by']}>
        {rows.map((e) => {
          const a = graph.getEdgeAttributes(e);
          const name = (n: string) => String(graph.getNodeAttribute(n, 'name') ?? n);
          return (
            <tr>
              <td>
                {name(graph.source(e))} <strong>{String(a.type)}</strong> {name(graph.target(e))}
              </td>
              <td>{(a.reasons as string[]).join('; ') || '—'}</td>
              <td>
                {(a.assertedBy as string[]).map((m) => (
                  <a href={href('graph', { owner, id: m })}>{shortId(m)} </a>
                ))}
              </td>
            </tr>
          );
        })}
      </Table>
    </section>
  );
}
