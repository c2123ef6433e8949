// The Extractor port: turns episodes into claims (reflection, a later issue).
// Declared now so that derived memories have a stable shape to come from.
import type {
  Authority,
  ExtractorInfo,
  MemoryKind,
  RelationInput,
  EntityRef,
} from '../domain/record.ts';

/** One episode as an extractor reads it. */
export interface ExtractionEpisode {
  id: string;
  text: string;
  observedAt: string;
  /**
   * Set for an episode read from someone else's content (a web page, a
   * document): its "I" and "we" are that content's author, never the owner.
   */
  authority?: 'third_party';
  /** Where a third-party episode was read from: its source uri, or its tool. */
  source?: string;
}

export interface ExtractionInput {
  ownerId: string;
  episodes: ExtractionEpisode[];
}

/** An episode's extraction fields for who vouches for it (nothing for the owner's own words). */
export function extractionAuthority(e: {
  authority: Authority;
  origin: { source?: { uri: string }; tool?: { name: string } };
}): Pick<ExtractionEpisode, 'authority' | 'source'> {
  if (e.authority !== 'third_party') return {};
  const source = e.origin.source?.uri ?? e.origin.tool?.name;
  return { authority: 'third_party', ...(source !== undefined && { source }) };
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
