// The commands of the use-cases that declare their exposure in core's
// registry (exposure.ts) with a CLI command: each derived from its row, with
// nothing written here per use-case. The owner is `--owner`, any other
// argument the path names is an option of its own name, and the rest of the
// arguments are one JSON object (`--input`), as the HTTP query or body
// carries them. The answer prints as JSON.
import type { Command } from 'commander';
import type { Caller } from '@keepgraph/core';
import {
  KeepGraphError,
  USE_CASES,
  argumentsFrom,
  httpBinding,
  type ExposedUseCase,
  type UseCaseName,
} from '@keepgraph/core/registry';
import { globalOptions, runsUseCases, withRuntime } from '../context.ts';
import type { Io } from '../io.ts';

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

function parseInput(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new KeepGraphError('invalid_input', '--input must be a JSON object', { field: 'input' });
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new KeepGraphError('invalid_input', '--input must be a JSON object', { field: 'input' });
  return v as Record<string, unknown>;
}

export function registerExposed(program: Command, io: Io): void {
  const rows = Object.entries(USE_CASES) as [UseCaseName, Partial<ExposedUseCase>][];
  for (const [name, row] of rows) {
    if (!row.expose?.cli) continue;
    const u = row as ExposedUseCase;
    const b = httpBinding(u);
    const cmd = runsUseCases(program.command(u.expose.cli!.command), [name]).description(
      u.expose.summary,
    );
    const pathArgs = b.args.filter((a) => a.in === 'path');
    for (const a of pathArgs)
      cmd.requiredOption(
        a.name === 'ownerId' ? '--owner <id>' : `--${kebab(a.name)} <value>`,
        a.name === 'ownerId' ? 'the owner' : a.name,
      );
    if (b.args.some((a) => a.in !== 'path'))
      cmd.option('--input <json>', 'the other arguments, as one JSON object');
    cmd.action(async (flags: Record<string, string>, c: Command) => {
      await withRuntime(globalOptions(c), async ({ engine, caller }) => {
        const params = Object.fromEntries(
          pathArgs.map((a) => [a.name, a.name === 'ownerId' ? flags.owner : flags[a.name]]),
        );
        const args = argumentsFrom(b, params, parseInput(flags.input));
        const run = engine[name] as (caller: Caller, ...a: unknown[]) => Promise<unknown>;
        io.out(JSON.stringify(await run(caller, ...args), null, 2));
      });
    });
  }
}
