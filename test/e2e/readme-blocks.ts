// A README's code blocks, for the tests that run them as they are written:
// the repository's README and the packages' own (what a stranger reads on
// the registry).
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');

/** The ```LANG blocks of `readme` (a path from the repository root), in order. */
export async function readmeBlocks(lang: string, readme = 'README.md'): Promise<string[]> {
  const text = await readFile(join(root, readme), 'utf8');
  return [...text.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
}
