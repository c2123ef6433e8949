// Loads the long Cypher statements kept in ./queries/*.cypher (read once, at
// first use), so each statement can be read on its own with its header of
// parameters. Every statement takes its values as parameters; nothing from
// input is ever spliced into query text.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const QUERIES_DIR = fileURLToPath(new URL('./queries/', import.meta.url));

let files: Map<string, string> | null = null;

/** The text of `queries/<name>.cypher`. Throws on an unknown name (a bug, not input). */
export function cypher(name: string): string {
  if (!files) {
    files = new Map();
    for (const entry of readdirSync(QUERIES_DIR)) {
      if (entry.endsWith('.cypher')) {
        files.set(
          entry.slice(0, -'.cypher'.length),
          readFileSync(`${QUERIES_DIR}${entry}`, 'utf8'),
        );
      }
    }
  }
  const text = files.get(name);
  if (text === undefined) throw new Error(`no query file queries/${name}.cypher`);
  return text;
}
