// The embedding models' ids: the installed transformers.js models and the
// hashing embedder, apart from the code that loads them, so that a command
// line offers them as choices without loading it
// (@keepgraph/embedder/model-ids; the CLI builds its commands at every
// start, `--help` included).

/** The model ids scripts/setup-models.sh installs. */
export type TransformersModelId = 'bge-small-en-v1.5-q' | 'e5-small-v2-q' | 'all-minilm-l6-v2-q';

/** Every {@link TransformersModelId}, for validating ids read from config. */
export const TRANSFORMERS_MODEL_IDS: readonly TransformersModelId[] = [
  'bge-small-en-v1.5-q',
  'e5-small-v2-q',
  'all-minilm-l6-v2-q',
];

/**
 * The model new embeddings use unless told otherwise: the winner of
 * bench/model-compare.ts on locomo-dev turn retrieval (turns embedded as
 * "Speaker: text"): bge R@5 48.7 / R@10 60.0 against MiniLM's 38.7 / 47.8.
 */
export const DEFAULT_MODEL_ID: TransformersModelId = 'bge-small-en-v1.5-q';

/**
 * The hashing embedder at the real models' width (384), so a store written
 * with it keeps the same vector index shape. Not for recall that should
 * mean anything.
 */
export const HASHING_MODEL_ID = 'hashing-384';

export type ModelId = TransformersModelId | typeof HASHING_MODEL_ID;

/** Every id `createEmbedder` accepts, for validating configuration. */
export const MODEL_IDS: readonly ModelId[] = [...TRANSFORMERS_MODEL_IDS, HASHING_MODEL_ID];

export function isModelId(id: string): id is ModelId {
  return (MODEL_IDS as readonly string[]).includes(id);
}
