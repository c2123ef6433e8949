// The flags of the scripts that run over a memory-retrieval-eval/v1 dataset
// (locomo-dev), read as `keepgraph bench recall` reads them: --dataset is
// required, --limit-conversations keeps only the first N for a quick run.
import { resolve } from 'node:path';
import { limitConversations, loadDataset, type Dataset } from '@keepgraph/cli/retrieval-eval';

/** Spread into a script's parseArgs options, next to its own flags. */
export const DATASET_FLAGS = {
  dataset: { type: 'string' },
  'limit-conversations': { type: 'string' },
} as const;

/** A required flag is missing: the script's usage line on stderr, exit code 2. */
export function exitWithUsage(usage: string): never {
  console.error(usage);
  process.exit(2);
}

/** The dataset --dataset names (relative to the working directory), cut to --limit-conversations. */
export async function flaggedDataset(
  flags: { dataset?: string; 'limit-conversations'?: string },
  usage: string,
): Promise<Dataset> {
  if (!flags.dataset) exitWithUsage(usage);
  const limit = flags['limit-conversations'];
  return limitConversations(
    await loadDataset(resolve(flags.dataset)),
    limit === undefined ? undefined : Number(limit),
  );
}
