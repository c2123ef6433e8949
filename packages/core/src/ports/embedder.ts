// The Embedder port: text in, unit vectors out. The model id is stored with
// every embedding so a model change can be detected and re-embedded.
export type EmbedPurpose = 'query' | 'document';

export interface Embedder {
  /** Stable model id stored with every embedding, e.g. 'bge-small-en-v1.5-q'. */
  readonly modelId: string;
  readonly dimensions: number;
  /** L2-normalised vectors, one per text, in order. Batches internally. */
  embed(texts: readonly string[], purpose: EmbedPurpose): Promise<Float32Array[]>;
}
