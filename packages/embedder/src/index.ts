// @keepgraph/embedder: local text embeddings (transformers.js over ONNX) behind the core Embedder port.

export type { EmbedPurpose, Embedder } from '@keepgraph/core/ports';
export { createTransformersEmbedder } from './transformers-embedder.ts';
export type { TransformersEmbedderOptions } from './transformers-embedder.ts';
export {
  DEFAULT_MODEL_ID,
  HASHING_MODEL_ID,
  isModelId,
  MODEL_IDS,
  TRANSFORMERS_MODEL_IDS,
} from './model-ids.ts';
export type { ModelId, TransformersModelId } from './model-ids.ts';
export { createHashingEmbedder } from './hashing-embedder.ts';
export { createEmbedder } from './embedder-choice.ts';
export { resolveModelsDir } from './models-dir.ts';
export {
  DEFAULT_MODEL_REPOSITORY,
  MODEL_ARTIFACTS,
  ModelInstallError,
  installModel,
  missingModelFiles,
  modelCacheDir,
} from './model-install.ts';
export type { InstallOptions, ModelArtifact } from './model-install.ts';
export { dot, l2Normalize } from './vector-math.ts';
