// Turning JSONL lines into memory inputs for the import use-case. A line is
// either a MemoryInput (what `remember` accepts) or a full memory as
// `keepgraph export` writes it; the latter is mapped back to an input, since
// a stored memory's id, owner, timestamps and hashes belong to the store that
// made them and are assigned afresh on import.
import type { Memory, MemoryInput } from './record.ts';

/** What one JSONL line became. */
export type ImportLine =
  | { type: 'input'; input: MemoryInput | unknown }
  /** A derived exported memory: its sources' ids do not survive an import. */
  | { type: 'skipped_derived'; id: string }
  | { type: 'invalid'; code: 'invalid_json' | 'invalid_input'; message: string };

/**
 * An exported memory carries store-made fields that an input never has.
 * Checking several keeps a malformed input from being taken for a memory.
 */
export function isExportedMemory(v: Record<string, unknown>): boolean {
  return (
    typeof v.id === 'string' && typeof v.ownerId === 'string' && typeof v.contentHash === 'string'
  );
}

/**
 * Map an exported memory to the input that recreates it: kind, text, origin
 * (without writtenBy, which the importing principal sets), authority, key,
 * tags, confidence, sensitivity, about and relations. Expiry is not carried:
 * the import is a new write, so the importing policy's TTL applies.
 */
export function memoryToInput(m: Memory): MemoryInput {
  // Guarded: a hand-edited line may lack an origin; the engine then says so.
  const { writtenBy: _writtenBy, ...origin } = (m.origin ?? {}) as Memory['origin'];
  return {
    kind: m.kind,
    text: m.text,
    origin,
    authority: m.authority,
    ...(m.key ? { key: m.key } : {}),
    tags: m.tags,
    confidence: m.confidence,
    sensitivity: m.sensitivity,
    about: m.about,
    relations: m.relations,
  };
}

/** Classify one line of an import file. Blank lines are the caller's to skip. */
export function parseImportLine(line: string): ImportLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (e) {
    return {
      type: 'invalid',
      code: 'invalid_json',
      message: e instanceof Error ? e.message : String(e),
    };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { type: 'invalid', code: 'invalid_input', message: 'a line must be one JSON object' };
  }
  const record = value as Record<string, unknown>;
  if (!isExportedMemory(record)) return { type: 'input', input: record };
  const m = record as unknown as Memory;
  if (Array.isArray(m.derivedFrom) && m.derivedFrom.length > 0)
    return { type: 'skipped_derived', id: m.id };
  return { type: 'input', input: memoryToInput(m) };
}
