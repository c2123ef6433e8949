// `keepgraph export`: one owner's current memories as JSONL, one memory per
// line with all its fields, to a file or stdout.
import { once } from 'node:events';
import { open, rm } from 'node:fs/promises';
import type { Command } from 'commander';
import type { Caller, Engine } from '@keepgraph/core';
import { KeepGraphError, checkOwner, type Memory } from '@keepgraph/core/registry';
import { globalOptions, runsUseCases, userPath, withRuntime } from '../context.ts';
import type { Io } from '../io.ts';

const PAGE = 500;

/** An export holds an owner's memories: its owner's to read only. */
const EXPORT_FILE_MODE = 0o600;

/**
 * Every held memory of the owner (not expired, superseded or ended), oldest
 * first within each page, through the engine's export use-case: each page
 * is audited as a read, and only operators and users may export.
 */
export async function* exportMemories(
  engine: Engine,
  caller: Caller,
  ownerId: string,
): AsyncGenerator<Memory> {
  let after: string | undefined;
  for (;;) {
    const page = await engine.exportPage(caller, ownerId, {
      ...(after !== undefined ? { after } : {}),
      limit: PAGE,
    });
    yield* page.memories;
    if (page.next === null) return;
    after = page.next;
  }
}

async function write(stream: NodeJS.WritableStream, chunk: string): Promise<void> {
  // Respect backpressure: an owner may have many thousands of memories.
  if (!stream.write(chunk)) await once(stream, 'drain');
}

export function registerExport(program: Command, io: Io): void {
  runsUseCases(program.command('export'), ['exportPage'])
    .description("write an owner's current memories as JSONL (one memory per line, all fields)")
    .requiredOption('--owner <id>', 'owner to export')
    .option('--out <file>', 'write to this file instead of stdout')
    .action(async (f: { owner: string; out?: string }, cmd: Command) => {
      const ownerId = checkOwner(f.owner);
      // Open the file before loading the runtime: a bad path fails at once.
      // Owner-only, as the data dir it is copied from (DESIGN invariant 14):
      // the mode covers a new file, the chmod one being replaced.
      // (A device or a pipe named as --out is left as it is.)
      const handle = f.out ? await open(userPath(f.out), 'w', EXPORT_FILE_MODE) : null;
      if (handle && (await handle.stat()).isFile()) await handle.chmod(EXPORT_FILE_MODE);
      const file = handle?.createWriteStream() ?? null;
      let streamError: unknown = null;
      let n = 0;
      // Without a listener a failed write would crash the process.
      file?.on('error', (e) => (streamError = e));
      try {
        await withRuntime(globalOptions(cmd), async ({ engine, caller }) => {
          const target = file ?? io.stdout;
          for await (const m of exportMemories(engine, caller, ownerId)) {
            if (streamError) throw streamError;
            await write(target, `${JSON.stringify(m)}\n`);
            n++;
          }
          // An owner with nothing held is most often a typo: say so, exit 1.
          if (n === 0)
            throw new KeepGraphError('not_found', `owner ${ownerId} holds no memories to export`, {
              ownerId,
            });
          io.err(`exported ${n} memories of ${ownerId}${f.out ? ` to ${f.out}` : ''}`);
        });
      } finally {
        if (file) {
          file.end();
          await once(file, 'close').catch(() => {});
          // Leave no empty file behind a failed export.
          if (n === 0) await rm(userPath(f.out!), { force: true });
        }
      }
      if (streamError) throw streamError;
    });
}
