// `keepgraph export`: one owner's current memories as JSONL, one memory per
// line with all its fields, to a file or stdout.
import { once } from 'node:events';
import { open } from 'node:fs/promises';
import type { Command } from 'commander';
import { checkOwner, type Memory, type MemoryStore } from '@keepgraph/core';
import { globalOptions, userPath, withRuntime } from '../context.ts';
import type { Io } from '../io.ts';

const PAGE = 500;

/**
 * Every live, current memory of the owner, oldest first. Expired memories
 * are gone in law even before the sweeper purges them (invariant 6), and
 * superseded versions would come back as current claims on import, so both
 * are left out.
 */
export async function* exportMemories(
  store: MemoryStore,
  ownerId: string,
  now: Date,
): AsyncGenerator<Memory> {
  const at = now.toISOString();
  let after: string | undefined;
  for (;;) {
    const ids = await store.listIds(ownerId, {
      ...(after !== undefined ? { after } : {}),
      limit: PAGE,
    });
    if (ids.length === 0) return;
    const rows = await store.getByIds(ownerId, ids);
    rows.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    for (const m of rows) {
      if (m.expiresAt <= at || m.supersededBy !== null || (m.validTo !== null && m.validTo <= at))
        continue;
      yield m;
    }
    if (ids.length < PAGE) return;
    after = ids[ids.length - 1];
  }
}

async function write(stream: NodeJS.WritableStream, chunk: string): Promise<void> {
  // Respect backpressure: an owner may have many thousands of memories.
  if (!stream.write(chunk)) await once(stream, 'drain');
}

export function registerExport(program: Command, io: Io): void {
  program
    .command('export')
    .description("write an owner's current memories as JSONL (one memory per line, all fields)")
    .requiredOption('--owner <id>', 'owner to export')
    .option('--out <file>', 'write to this file instead of stdout')
    .action(async (f: { owner: string; out?: string }, cmd: Command) => {
      const ownerId = checkOwner(f.owner);
      // Open the file before loading the runtime: a bad path fails at once.
      const handle = f.out ? await open(userPath(f.out), 'w') : null;
      const file = handle?.createWriteStream() ?? null;
      let streamError: unknown = null;
      // Without a listener a failed write would crash the process.
      file?.on('error', (e) => (streamError = e));
      try {
        await withRuntime(globalOptions(cmd), async ({ engine, store }) => {
          const target = file ?? io.stdout;
          let n = 0;
          for await (const m of exportMemories(store, ownerId, engine.deps.clock.now())) {
            if (streamError) throw streamError;
            await write(target, `${JSON.stringify(m)}\n`);
            n++;
          }
          io.err(`exported ${n} memories of ${ownerId}${f.out ? ` to ${f.out}` : ''}`);
        });
      } finally {
        if (file) {
          file.end();
          await once(file, 'close').catch(() => {});
        }
      }
      if (streamError) throw streamError;
    });
}
