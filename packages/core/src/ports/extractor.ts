// The Extractor port: turns episodes into claims (reflection, a later issue).
// Declared now so that derived memories have a stable shape to come from.
import type { ExtractorInfo, MemoryKind, RelationInput, EntityRef } from '../record.ts';

export interface ExtractionInput {
  ownerId: string;
  episodes: { id: string; text: string; observedAt: string }[];
}

export interface ExtractedClaim {
  kind: Exclude<MemoryKind, 'episode' | 'kv'>;
  text: string;
  confidence: number;
  /** Which of the input episodes support this claim. */
  sourceIds: string[];
  about: EntityRef[];
  relations: RelationInput[];
}

export interface Extractor {
  readonly info: ExtractorInfo;
  extract(input: ExtractionInput): Promise<ExtractedClaim[]>;
}
