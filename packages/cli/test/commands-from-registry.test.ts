// Every `keepgraph` command that touches memories runs registry use-cases it
// declares (runsUseCases), and its engine offers those only: the declaration
// is the command's reach, not a comment. start and worker run none: they
// start the processes whose requests and jobs do.
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { USE_CASES, createEngine } from '@keepgraph/core';
import { defaultPolicy } from '@keepgraph/core/policy';
import { systemClock, type Embedder, type MemoryStore } from '@keepgraph/core/ports';
import { buildProgram, NOT_USE_CASE_COMMANDS } from '../src/program.ts';
import { declaredUseCases, engineLimitedTo } from '../src/context.ts';
import type { Io } from '../src/io.ts';

const silent: Io = {
  stdout: { write: () => true },
  stderr: { write: () => true },
  out: () => {},
  err: () => {},
} as unknown as Io;

function leaves(cmd: Command, path: string[] = []): { path: string; cmd: Command }[] {
  if (cmd.commands.length === 0) return [{ path: path.join(' '), cmd }];
  return cmd.commands.flatMap((c) => leaves(c, [...path, c.name()]));
}

describe('commands come from the use-case registry', () => {
  const commands = leaves(buildProgram(silent));

  it('every command declares registry use-cases, or is one of those that start processes', () => {
    expect(commands.length).toBeGreaterThanOrEqual(10);
    for (const { path, cmd } of commands) {
      const declared = declaredUseCases(cmd);
      if ((NOT_USE_CASE_COMMANDS as readonly string[]).includes(path)) {
        expect(declared, path).toBeUndefined();
        continue;
      }
      expect(declared?.length, path).toBeGreaterThan(0);
      for (const name of declared!) expect(Object.keys(USE_CASES), path).toContain(name);
    }
  });

  it("a command's engine refuses a use-case it did not declare, before it runs", async () => {
    const engine = createEngine({
      store: {} as MemoryStore,
      embedder: {} as Embedder,
      policy: defaultPolicy(),
      clock: systemClock,
    });
    const limited = engineLimitedTo(engine, ['recall']);
    expect(typeof limited.recall).toBe('function');
    expect(limited.deps).toBe(engine.deps);
    expect(() => limited.forgetOwner).toThrow(/declared recall, not forgetOwner/);
  });
});
