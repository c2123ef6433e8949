// Where the local ONNX models live: the folder scripts/setup-models.sh fills
// in a checkout, or the user's cache folder for an installed keepgraph.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { modelCacheDir } from './model-install.ts';

/**
 * The local models folder: `$KEEPGRAPH_MODELS_DIR` when set; else the
 * checkout's `<repo root>/models` when this runs from a checkout that has
 * one (found from this file's location, so the answer does not depend on the
 * working directory); else `$XDG_CACHE_HOME/keepgraph/models`
 * (~/.cache/keepgraph/models), where an installed keepgraph fetches models.
 */
export function resolveModelsDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env['KEEPGRAPH_MODELS_DIR'];
  if (fromEnv) return fromEnv;
  const checkout = fileURLToPath(new URL('../../../models', import.meta.url));
  return existsSync(checkout) ? checkout : modelCacheDir(env);
}
