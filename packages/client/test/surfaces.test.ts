// Every registry use-case an agent role may call is reachable from each SDK:
// the TypeScript client has a method of the use-case's name, and the Python
// Client (read from its source) one of the snake_case name. A use-case
// added for agents without an SDK method fails here. An exposed use-case
// (core's exposure.ts) is reached by each SDK's `invoke`, through bindings
// generated from the registry: it must be in those. (MCP tools: the same
// check in packages/mcp/test/tools.test.ts.)
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { USE_CASES, type UseCaseName } from '@keepgraph/core';
import { KeepGraphClient } from '../src/index.ts';
import { EXPOSED } from '../src/exposed.generated.ts';

const forAgents = (Object.keys(USE_CASES) as UseCaseName[]).filter((n) =>
  (USE_CASES[n].roles as readonly string[]).includes('agent'),
);
const isExposed = (n: UseCaseName) => 'expose' in USE_CASES[n];
const agentUseCases = forAgents.filter((n) => !isExposed(n));
const exposedForAgents = forAgents.filter(isExposed);
const pythonSource = (file: string) =>
  readFileSync(resolve(import.meta.dirname, '../../../clients/python/src/keepgraph', file), 'utf8');

/** Where the Python name is not the snake_case of the use-case's. */
const PYTHON_NAMES: Partial<Record<UseCaseName, string>> = { importMemories: 'import_jsonl' };
const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

describe('the SDK surfaces', () => {
  it('the TypeScript client has a method for every use-case an agent may call', () => {
    const methods = new Set(Object.getOwnPropertyNames(KeepGraphClient.prototype));
    expect(agentUseCases.filter((n) => !methods.has(n))).toEqual([]);
    expect(methods.has('invoke')).toBe(true);
    expect(exposedForAgents.filter((n) => !(n in EXPOSED))).toEqual([]);
  });

  it('the Python Client and AsyncClient have one for every use-case an agent may call', () => {
    const source = pythonSource('_client.py');
    const [sync, async_] = source.split('class AsyncClient');
    const defs = (text: string, prefix: string) =>
      new Set(
        [...text.matchAll(new RegExp(`^    ${prefix}def (\\w+)\\(`, 'gm'))].map((m) => m[1]!),
      );
    const syncDefs = defs(sync!, '');
    const asyncDefs = defs(async_!, 'async ');
    const wanted = agentUseCases.map((n) => PYTHON_NAMES[n] ?? snake(n));
    expect(wanted.filter((n) => !syncDefs.has(n))).toEqual([]);
    expect(wanted.filter((n) => !asyncDefs.has(n))).toEqual([]);
    expect(syncDefs.has('invoke') && asyncDefs.has('invoke')).toBe(true);
    const bindings = pythonSource('_exposed.py');
    expect(exposedForAgents.filter((n) => !bindings.includes(`"${n}":`))).toEqual([]);
  });
});
