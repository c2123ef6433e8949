// KeepGraph as a LangGraph.js BaseStore, over the HTTP client. The first
// namespace element is the owner; the rest and the item key make the
// memory's key (`["alex", "prefs"]` + `"seat"` is key `prefs/seat` of owner
// alex), so a put supersedes the previous value of that key through the
// write gate (never one of higher authority). `search` with a query is
// recall: items come with their score and, in the value, the memory's
// origin and authority; without a query it lists. `delete` forgets the
// key's memories with the cascade. An item's value is what was put, plus
// the provenance KeepGraph adds (memoryId, kind, authority, origin).
import {
  BaseStore,
  type GetOperation,
  type Item,
  type ListNamespacesOperation,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchItem,
  type SearchOperation,
} from '@langchain/langgraph-checkpoint';
import { KeepGraphClient, KeepGraphError, type ClientOptions } from '@keepgraph/client';
import type { Memory, OriginInput } from '@keepgraph/core';

export interface KeepGraphStoreOptions extends ClientOptions {
  /** The origin of values put without one (default: the tool "langgraph"). */
  origin?: OriginInput;
}

/** What a put's value holds besides its own fields. */
interface StoredValue {
  /** The text KeepGraph keeps and recalls (the value as JSON when absent). */
  text?: string;
  kind?: Memory['kind'];
  origin?: OriginInput;
  [field: string]: unknown;
}

const PROVENANCE = ['memoryId', 'kind', 'authority', 'origin', 'sourceOrigins', 'derivedFrom'];

function split(namespace: readonly string[]): { owner: string; prefix: string } {
  const [owner, ...rest] = namespace;
  if (!owner)
    throw new KeepGraphError(
      'owner_required',
      'the first namespace element is the owner: name one',
      400,
    );
  return { owner, prefix: rest.length ? `${rest.join('/')}/` : '' };
}

function toItem(m: Memory, namespace: string[], key: string): Item {
  let fields: Record<string, unknown> = {};
  const tagged = m.tags.find((t) => t.startsWith('lg:json'));
  if (tagged) {
    try {
      fields = JSON.parse(m.text) as Record<string, unknown>;
    } catch {
      fields = {};
    }
  }
  return {
    namespace,
    key,
    value: {
      ...(tagged ? fields : { text: m.text }),
      memoryId: m.id,
      kind: m.kind,
      authority: m.authority,
      origin: m.origin,
      sourceOrigins: m.sourceOrigins,
      derivedFrom: m.derivedFrom,
    },
    createdAt: new Date(m.createdAt),
    updatedAt: new Date(m.createdAt),
  };
}

/** Where a memory's key puts it: its namespace under the owner, and the item key. */
function placeOf(owner: string, m: Memory): { namespace: string[]; key: string } {
  if (m.key === null) return { namespace: [owner], key: m.id };
  const parts = m.key.split('/');
  return { namespace: [owner, ...parts.slice(0, -1)], key: parts.at(-1)! };
}

function matches(value: Record<string, unknown>, filter: Record<string, unknown> = {}): boolean {
  return Object.entries(filter).every(([k, want]) => {
    const have = value[k];
    if (want !== null && typeof want === 'object' && !Array.isArray(want)) {
      const ops = want as Record<string, unknown>;
      return Object.entries(ops).every(([op, v]) => {
        if (op === '$eq') return have === v;
        if (op === '$ne') return have !== v;
        if (op === '$gt') return (have as number) > (v as number);
        if (op === '$gte') return (have as number) >= (v as number);
        if (op === '$lt') return (have as number) < (v as number);
        if (op === '$lte') return (have as number) <= (v as number);
        return false;
      });
    }
    return JSON.stringify(have) === JSON.stringify(want);
  });
}

export class KeepGraphStore extends BaseStore {
  readonly client: KeepGraphClient;
  private readonly origin: OriginInput;

  constructor(opts: KeepGraphStoreOptions) {
    super();
    this.client = new KeepGraphClient(opts);
    this.origin = opts.origin ?? { tool: { name: 'langgraph' } };
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const out: unknown[] = [];
    for (const op of operations) {
      if ('namespacePrefix' in op) out.push(await this.searchOp(op));
      else if ('value' in op) out.push(await this.putOp(op));
      else if ('matchConditions' in op || 'maxDepth' in op || !('key' in op))
        out.push(await this.listOp(op as ListNamespacesOperation));
      else out.push(await this.getOp(op));
    }
    return out as OperationResults<Op>;
  }

  private async getOp(op: GetOperation): Promise<Item | null> {
    const { owner, prefix } = split(op.namespace);
    const { current } = await this.client.getByKey(owner, prefix + op.key).catch((e: unknown) => {
      if (e instanceof KeepGraphError && e.code === 'not_found') return { current: null };
      throw e;
    });
    return current ? toItem(current, op.namespace, op.key) : null;
  }

  private async putOp(op: PutOperation): Promise<void> {
    const { owner, prefix } = split(op.namespace);
    const key = prefix + op.key;
    if (op.value === null) {
      const held = await this.client.getByKey(owner, key).catch(() => null);
      const ids = held
        ? [...(held.current ? [held.current.id] : []), ...held.conflicts.map((m) => m.id)]
        : [];
      if (ids.length > 0) await this.client.forget(owner, ids);
      return;
    }
    const value = op.value as StoredValue;
    const own = Object.fromEntries(Object.entries(value).filter(([k]) => !PROVENANCE.includes(k)));
    const plain = typeof value.text === 'string' && Object.keys(own).every((k) => k === 'text');
    await this.client.putByKey(owner, key, {
      ...(value.kind && { kind: value.kind }),
      // A value that is more than its text is kept as JSON, marked so it reads back as it was put.
      text: plain ? value.text! : JSON.stringify(own),
      origin: value.origin ?? this.origin,
      tags: plain ? ['langgraph'] : ['langgraph', 'lg:json'],
    });
  }

  private async searchOp(op: SearchOperation): Promise<SearchItem[]> {
    const { owner, prefix } = split(op.namespacePrefix);
    const limit = op.limit ?? 10;
    const offset = op.offset ?? 0;
    const inPrefix = (m: Memory) => prefix === '' || (m.key ?? '').startsWith(prefix);
    let found: { memory: Memory; score?: number }[];
    if (op.query) {
      const r = await this.client.recall(owner, op.query, { topK: Math.min(100, limit + offset) });
      found = r.results.map((h) => ({ memory: h.memory, score: h.score }));
    } else {
      const page = await this.client.listMemories(owner, { limit: 500 });
      found = page.memories.map((memory) => ({ memory }));
    }
    return found
      .filter((f) => inPrefix(f.memory))
      .map((f) => {
        const place = placeOf(owner, f.memory);
        return {
          ...toItem(f.memory, place.namespace, place.key),
          ...(f.score !== undefined && { score: f.score }),
        };
      })
      .filter((item) => matches(item.value, op.filter))
      .slice(offset, offset + limit);
  }

  private async listOp(op: ListNamespacesOperation): Promise<string[][]> {
    const prefixes = (op.matchConditions ?? []).filter((c) => c.matchType === 'prefix');
    const owner = prefixes[0]?.path[0];
    if (typeof owner !== 'string' || owner === '*') return [];
    const page = await this.client.listMemories(owner, { limit: 500 });
    const seen = new Map<string, string[]>();
    for (const m of page.memories) {
      const ns = placeOf(owner, m).namespace.slice(0, op.maxDepth ?? undefined);
      seen.set(JSON.stringify(ns), ns);
    }
    return [...seen.values()]
      .filter((ns) => prefixes.every((c) => c.path.every((p, i) => p === '*' || ns[i] === p)))
      .slice(op.offset, op.offset + op.limit);
  }
}
