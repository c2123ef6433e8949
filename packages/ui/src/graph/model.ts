// The provenance graph as the page draws it: the API's graphology graphs
// (lineage, neighbours, the entity graph) merged into one multigraph, with
// the origins of each memory (session, source, tool) added as nodes of their
// own, and the drawing attributes sigma reads (position, size, colour, label).
import { MultiDirectedGraph } from 'graphology';
import type { SerializedGraph } from 'graphology-types';
import type { Origin } from '@keepgraph/core';
import { AUTHORITY_COLOURS } from '../components/memory-bits.tsx';

export type NodeType = 'memory' | 'entity' | 'session' | 'source' | 'tool';

export const NODE_TYPE_COLOURS: Record<Exclude<NodeType, 'memory'>, string> = {
  entity: '#b8860b',
  session: '#6b7280',
  source: '#0f766e',
  tool: '#4d7c0f',
};

export const EDGE_COLOURS: Record<string, string> = {
  DERIVED_FROM: '#8a8f98',
  SUPERSEDES: '#c026d3',
  OBSERVED_IN: '#c4c8cf',
  FROM_SOURCE: '#99d5cf',
  BY_TOOL: '#bfdca0',
  ASSERTS: '#e3c67b',
};

export type ProvenanceGraph = MultiDirectedGraph;

/** The first graph of a view: `Graph.from` the API's serialized graph, then decorated. */
export function graphFrom(data: SerializedGraph): ProvenanceGraph {
  const g = MultiDirectedGraph.from({ ...data, options: { ...data.options, multi: true } });
  decorate(g, new Set(g.nodes()));
  return g;
}

/**
 * Where a node added to a drawn graph starts: beside `around` (the node
 * expanded), or anywhere near the middle. The renderer draws a node as soon
 * as it is added, so it must have a position from the start.
 */
function spot(g: ProvenanceGraph, around: string | undefined): { x: number; y: number } {
  const a = around && g.hasNode(around) ? g.getNodeAttributes(around) : null;
  const x = typeof a?.x === 'number' ? a.x : 0;
  const y = typeof a?.y === 'number' ? a.y : 0;
  return { x: x + (Math.random() - 0.5) * 4, y: y + (Math.random() - 0.5) * 4 };
}

/**
 * Merge another of the API's graphs (neighbours, entity graph) into `g`,
 * new nodes placed beside `around`; returns the new nodes.
 */
export function mergeInto(g: ProvenanceGraph, data: SerializedGraph, around?: string): string[] {
  const before = new Set(g.nodes());
  for (const n of data.nodes) {
    if (g.hasNode(n.key)) g.mergeNodeAttributes(n.key, n.attributes ?? {});
    else g.addNode(n.key, { ...n.attributes, ...spot(g, around) });
  }
  for (const e of data.edges) {
    if (!g.hasNode(e.source) || !g.hasNode(e.target)) continue;
    if (e.key !== undefined && g.hasEdge(e.key)) continue;
    if (e.key !== undefined) g.addEdgeWithKey(e.key, e.source, e.target, e.attributes ?? {});
    else g.addEdge(e.source, e.target, e.attributes ?? {});
  }
  const added = g.nodes().filter((n) => !before.has(n));
  decorate(g, new Set(added), (origin) => spot(g, around ?? origin));
  return added;
}

function label(text: string): string {
  return text.length > 40 ? `${text.slice(0, 38)}…` : text;
}

/** Add origin nodes for new memories and the drawing attributes of every new node and edge. */
function decorate(
  g: ProvenanceGraph,
  fresh: Set<string>,
  /** Where an origin node added beside memory `of` starts (none before the first drawing). */
  place: (of: string) => { x: number; y: number } | object = () => ({}),
): void {
  for (const key of fresh) {
    const a = g.getNodeAttributes(key);
    const type = (a.nodeType as NodeType | undefined) ?? 'memory';
    if (type !== 'memory') continue;
    const origin = a.origin as Origin | undefined;
    if (!origin) continue;
    const link = (node: string, nodeType: NodeType, name: string, edgeType: string) => {
      if (!g.hasNode(node)) {
        g.addNode(node, { nodeType, name, ...place(key) });
        fresh.add(node);
      }
      const edge = `${key}~${edgeType}~${node}`;
      if (!g.hasEdge(edge)) g.addEdgeWithKey(edge, key, node, { type: edgeType });
    };
    if (origin.sessionId)
      link(`session:${origin.sessionId}`, 'session', origin.sessionId, 'OBSERVED_IN');
    if (origin.source)
      link(`source:${origin.source.uri}`, 'source', origin.source.uri, 'FROM_SOURCE');
    if (origin.tool) link(`tool:${origin.tool.name}`, 'tool', origin.tool.name, 'BY_TOOL');
  }
  for (const key of fresh) {
    const a = g.getNodeAttributes(key);
    const type = (a.nodeType as NodeType | undefined) ?? 'memory';
    if (type === 'memory') {
      const kind = String(a.kind);
      g.mergeNodeAttributes(key, {
        nodeType: 'memory',
        color: AUTHORITY_COLOURS[String(a.authority)] ?? '#555',
        size: kind === 'rule' || kind === 'summary' ? 12 : kind === 'episode' ? 8 : 10,
        label: `${kind}: ${label(String(a.text ?? ''))}`,
      });
    } else {
      g.mergeNodeAttributes(key, {
        color: NODE_TYPE_COLOURS[type],
        size: type === 'entity' ? 9 : 7,
        label: `${type}: ${label(String(a.name ?? key))}`,
      });
    }
  }
  g.forEachEdge((edge, a) => {
    if (a.color) return;
    g.mergeEdgeAttributes(edge, {
      color: EDGE_COLOURS[String(a.type)] ?? '#b45309',
      size: a.type === 'DERIVED_FROM' || a.type === 'SUPERSEDES' ? 1.5 : 1,
      label: String(a.type),
    });
  });
}

/**
 * Starting positions of the first drawing: by distance from the root
 * (derived memories left, their sources to the right), spread vertically;
 * ForceAtlas2 then untangles from there. Nodes already placed keep their place.
 */
export function placeNodes(g: ProvenanceGraph, root: string): void {
  const depth = new Map<string, number>();
  if (g.hasNode(root)) {
    depth.set(root, 0);
    const queue = [root];
    while (queue.length > 0) {
      const n = queue.shift()!;
      const d = depth.get(n)!;
      g.forEachNeighbor(n, (m) => {
        if (!depth.has(m)) {
          depth.set(m, d + 1);
          queue.push(m);
        }
      });
    }
  }
  const perLayer = new Map<number, number>();
  g.forEachNode((n, a) => {
    if (typeof a.x === 'number' && typeof a.y === 'number') return;
    const d = depth.get(n) ?? 1;
    const i = perLayer.get(d) ?? 0;
    perLayer.set(d, i + 1);
    const spread = (i % 2 === 0 ? 1 : -1) * Math.ceil(i / 2);
    g.mergeNodeAttributes(n, { x: d * 10, y: spread * 2 });
  });
}
