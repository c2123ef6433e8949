// Which embedder a model id names: one of the installed transformers.js
// models, or the deterministic hashing embedder. The hashing one carries no
// meaning; it exists so that tests whose assertions do not depend on meaning
// (policy, auth, APIs, crashes, fuzzing, deletion) run a spawned server
// without loading an ONNX model, through the same setting a user has.

import type { Embedder } from '@keepgraph/core/ports';
import { createHashingEmbedder } from './hashing-embedder.ts';
import { installModel, missingModelFiles, type InstallOptions } from './model-install.ts';
import { resolveModelsDir } from './models-dir.ts';
import {
  DEFAULT_MODEL_ID,
  HASHING_MODEL_ID,
  TRANSFORMERS_MODEL_IDS,
  type ModelId,
  type TransformersModelId,
} from './model-ids.ts';
import { createTransformersEmbedder } from './transformers-embedder.ts';

/** The embedder a model id names (the transformers.js options apply to real models only). */
export async function createEmbedder(opts: {
  modelId?: ModelId;
  modelsDir?: string;
  lazy?: boolean;
  /**
   * Install a real model that is missing (from the local Maven repository,
   * else downloaded: model-install.ts) before loading it. Without it, a
   * missing model throws, naming how to install it.
   */
  install?: InstallOptions;
}): Promise<Embedder> {
  if (opts.modelId === HASHING_MODEL_ID) return createHashingEmbedder(384);
  const modelId = opts.modelId ?? DEFAULT_MODEL_ID;
  const modelsDir = opts.modelsDir ?? resolveModelsDir();
  if (
    opts.install &&
    isTransformersModelId(modelId) &&
    missingModelFiles(modelsDir, modelId).length > 0
  )
    await installModel(modelsDir, modelId, opts.install);
  return createTransformersEmbedder({
    modelId,
    modelsDir,
    ...(opts.lazy && { lazy: true }),
  });
}

function isTransformersModelId(id: string): id is TransformersModelId {
  return (TRANSFORMERS_MODEL_IDS as readonly string[]).includes(id);
}
