// Where the local ONNX models live: the folder scripts/setup-models.sh fills.
import { fileURLToPath } from 'node:url';

/**
 * The local models folder: `$KEEPGRAPH_MODELS_DIR` when set, else `<repo root>/models`.
 * The repo root is found from this file's location (packages/embedder/src/),
 * so the answer does not depend on the process's working directory.
 */
export function resolveModelsDir(): string {
  const fromEnv = process.env['KEEPGRAPH_MODELS_DIR'];
  if (fromEnv) return fromEnv;
  return fileURLToPath(new URL('../../../models', import.meta.url));
}
