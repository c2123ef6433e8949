// Which embedder a model id names: one of the installed transformers.js
// models, or the deterministic hashing embedder. The hashing one carries no
// meaning; it exists so that tests whose assertions do not depend on meaning
// (policy, auth, APIs, crashes, fuzzing, deletion) run a spawned server
// without loading an ONNX model, through the same setting a user has.

import type { Embedder } from '@keepgraph/core/ports';
import { createHashingEmbedder } from './hashing-embedder.ts';
import {
  TRANSFORMERS_MODEL_IDS,
  createTransformersEmbedder,
  type TransformersModelId,
} from './transformers-embedder.ts';

/**
 * The hashing embedder at the real models' width (384), so a store written
 * with it keeps the same vector index shape. Not for recall that should
 * mean anything.
 */
export const HASHING_MODEL_ID = 'hashing-384';

export type ModelId = TransformersModelId | typeof HASHING_MODEL_ID;

/** Every id {@link createEmbedder} accepts, for validating configuration. */
export const MODEL_IDS: readonly ModelId[] = [...TRANSFORMERS_MODEL_IDS, HASHING_MODEL_ID];

export function isModelId(id: string): id is ModelId {
  return (MODEL_IDS as readonly string[]).includes(id);
}

/** The embedder a model id names (the transformers.js options apply to real models only). */
export async function createEmbedder(opts: {
  modelId?: ModelId;
  modelsDir?: string;
  lazy?: boolean;
}): Promise<Embedder> {
  if (opts.modelId === HASHING_MODEL_ID) return createHashingEmbedder(384);
  return createTransformersEmbedder({
    ...(opts.modelId !== undefined && { modelId: opts.modelId }),
    ...(opts.modelsDir !== undefined && { modelsDir: opts.modelsDir }),
    ...(opts.lazy && { lazy: true }),
  });
}
