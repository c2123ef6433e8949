// The graph drawn with sigma.js (WebGL), laid out by ForceAtlas2 in a web
// worker so a large lineage never blocks the page. Clicking a node selects
// it; the page decides what selecting does (details, expand).
import { useEffect, useRef } from 'preact/hooks';
import Sigma from 'sigma';
import FA2LayoutModule from 'graphology-layout-forceatlas2/worker.js';
import forceAtlas2 from 'graphology-layout-forceatlas2';
import type { ProvenanceGraph } from './model.ts';

// The package is CommonJS (`module.exports = FA2LayoutSupervisor`) typed as
// an ES module with a default export: the default import is the class itself.
const FA2Layout = FA2LayoutModule as unknown as typeof FA2LayoutModule.default;

/** How long the worker lays out after each change, in ms. */
const LAYOUT_MS = 1500;

declare global {
  interface Window {
    /** Set when the graph has been drawn once: ms from the view's start (read by the benchmark). */
    __kgGraphDrawnMs?: number;
    /** The same moment, in ms from the page's navigation. */
    __kgGraphDrawnAt?: number;
  }
}

export function GraphCanvas({
  graph,
  version,
  selected,
  onSelect,
  label,
  startedAt,
}: {
  graph: ProvenanceGraph;
  /** Bumped by the page when nodes were added: the layout runs again. */
  version: number;
  selected: string | null;
  onSelect(node: string): void;
  label: string;
  startedAt: number;
}) {
  const box = useRef<HTMLDivElement>(null);
  const sigma = useRef<Sigma | null>(null);
  const selectRef = useRef(onSelect);
  selectRef.current = onSelect;

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const renderer = new Sigma(graph, el, {
      defaultEdgeType: 'arrow',
      renderEdgeLabels: false,
      // Every label on a small graph; on a large one, the larger nodes' only.
      labelRenderedSizeThreshold: graph.order > 150 ? 10 : 0,
      allowInvalidContainer: true,
      // Edges carry their relation in `type` (DERIVED_FROM, PREFERS_AGAINST…);
      // sigma reads `type` as the drawing program, so every edge is drawn as an arrow.
      edgeReducer: (_edge, data) => ({ ...data, type: 'arrow' }),
    });
    renderer.once('afterRender', () => {
      window.__kgGraphDrawnAt = performance.now();
      window.__kgGraphDrawnMs = window.__kgGraphDrawnAt - startedAt;
      el.dataset.drawn = 'true';
    });
    renderer.on('clickNode', ({ node }) => selectRef.current(node));
    sigma.current = renderer;
    return () => {
      renderer.kill();
      sigma.current = null;
    };
  }, [graph]);

  useEffect(() => {
    if (graph.order < 2) return;
    const layout = new FA2Layout(graph, {
      settings: { ...forceAtlas2.inferSettings(graph), barnesHutOptimize: graph.order > 300 },
    });
    layout.start();
    const stop = setTimeout(() => layout.stop(), LAYOUT_MS);
    return () => {
      clearTimeout(stop);
      layout.kill();
    };
  }, [graph, version]);

  useEffect(() => {
    const r = sigma.current;
    if (!r) return;
    r.setSetting('nodeReducer', (node, data) =>
      node === selected ? { ...data, highlighted: true, size: (data.size ?? 5) * 1.6 } : data,
    );
  }, [selected, graph]);

  return <div ref={box} class="graph-canvas" role="img" aria-label={label} />;
}
