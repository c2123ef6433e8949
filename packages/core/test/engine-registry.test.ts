// The engine comes from the use-case registry: one method per entry and
// nothing else, and each method refuses the roles its entry does not name
// before the use-case runs. The store and embedder here throw on any use: a
// refused call must never reach them.
import { describe, expect, it } from 'vitest';
import {
  ROLES,
  USE_CASES,
  createEngine,
  isKeepGraphError,
  type UseCaseName,
  httpBinding,
  type ExposedUseCase,
} from '@keepgraph/core';
import { defaultPolicy } from '@keepgraph/core/policy';
import { systemClock, type Embedder, type MemoryStore } from '@keepgraph/core/ports';

const untouchable = <T extends object>(what: string) =>
  new Proxy({} as T, {
    get(_t, prop) {
      if (prop === 'then') return undefined;
      throw new Error(`${what}.${String(prop)} was reached`);
    },
  });

const engine = createEngine({
  store: untouchable<MemoryStore>('store'),
  embedder: untouchable<Embedder>('embedder'),
  policy: defaultPolicy(),
  clock: systemClock,
});

describe('the engine is derived from the use-case registry', () => {
  it('has exactly one method per registry entry', () => {
    const methods = Object.keys(engine)
      .filter((k) => k !== 'deps' && k !== 'services')
      .sort();
    expect(methods).toEqual(Object.keys(USE_CASES).sort());
    for (const name of methods) expect(typeof engine[name as UseCaseName]).toBe('function');
  });

  it('refuses every role an entry does not declare, before the use-case runs', async () => {
    let checked = 0;
    for (const [name, uc] of Object.entries(USE_CASES) as [
      UseCaseName,
      (typeof USE_CASES)[UseCaseName],
    ][]) {
      for (const role of ROLES.filter((r) => !uc.roles.includes(r))) {
        const call = engine[name] as (...a: unknown[]) => Promise<unknown>;
        const err = await call({ role, owners: 'all', principal: 'p' }, 'owner', 'x', 'y').catch(
          (e: unknown) => e,
        );
        expect(isKeepGraphError(err) && err.code, `${name} as ${role}`).toBe('forbidden_role');
        expect((err as Error).message).toContain(uc.action);
        checked++;
      }
    }
    // Operators' and people's use-cases exist: the loop above is not empty.
    expect(checked).toBeGreaterThanOrEqual(15);
  });

  it('names each argument of an entry once, the optional ones last', () => {
    for (const [name, uc] of Object.entries(USE_CASES)) {
      const names = uc.args.map((a) => a.name);
      expect(new Set(names).size, name).toBe(names.length);
      const firstOptional = uc.args.findIndex((a) => a.optional);
      if (firstOptional >= 0)
        expect(
          uc.args.slice(firstOptional).every((a) => a.optional),
          name,
        ).toBe(true);
    }
  });

  it('parses the owner and the input before a body runs: bad input never reaches the store', async () => {
    let checked = 0;
    for (const [name, uc] of Object.entries(USE_CASES) as [
      UseCaseName,
      (typeof USE_CASES)[UseCaseName],
    ][]) {
      if (uc.args[0]?.name !== 'ownerId') continue;
      const call = engine[name] as (...a: unknown[]) => Promise<unknown>;
      const blank = await call({ role: 'operator', owners: 'all', principal: 'p' }, '  ').catch(
        (e: unknown) => e,
      );
      expect(isKeepGraphError(blank) && blank.code, name).toBe('owner_required');
      // A well-formed owner, then an argument of the wrong type (a number where
      // every use-case wants a string, list or object).
      if (uc.args.length > 1 && !uc.args[1]!.optional) {
        const bad = await call(
          { role: 'operator', owners: 'all', principal: 'p' },
          'owner',
          42,
          42,
          42,
        ).catch((e: unknown) => e);
        expect(isKeepGraphError(bad) && bad.code, name).toBe('invalid_input');
      }
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(15);
  });

  it('declares the roles the design gives them', () => {
    expect(USE_CASES.forgetOwner.roles).toEqual(['operator', 'user']);
    expect(USE_CASES.auditList.roles).toEqual(['operator', 'analyst']);
    expect(USE_CASES.forget.roles).not.toContain('tool');
    for (const k of ['createKey', 'listKeys', 'revokeKey', 'auditVerify', 'expireDue'] as const)
      expect(USE_CASES[k].roles, k).toEqual(['operator']);
  });

  it('lets an analyst write, delete or change nothing', () => {
    const reads = new Set([
      'listMemories',
      'listSessions',
      'recall',
      'why',
      'get',
      'lineage',
      'neighbours',
      'entityGraph',
      'getByKey',
      'readLog',
      'verifyForgotten',
      'sessionContext',
      'readSession',
      'auditList',
      'kpis',
      'whoami',
      'listOwners',
    ]);
    for (const [name, uc] of Object.entries(USE_CASES)) {
      // An exposed use-case says itself whether it changes anything: its route's method.
      const exposed = (uc as Partial<ExposedUseCase>).expose;
      const read = exposed ? !httpBinding(uc as ExposedUseCase).write : reads.has(name);
      expect(uc.roles.includes('analyst'), name).toBe(read);
    }
  });

  it("refuses an owner outside the caller's scope before anything else is read, whatever the other arguments", async () => {
    let checked = 0;
    const scoped = { role: 'operator' as const, owners: ['mine'], principal: 'p' };
    for (const [name, uc] of Object.entries(USE_CASES) as [
      UseCaseName,
      (typeof USE_CASES)[UseCaseName],
    ][]) {
      // Scoped by the caller: they answer from its own scope (below).
      if ('scope' in uc && uc.scope === 'caller') continue;
      const call = engine[name] as (...a: unknown[]) => Promise<unknown>;
      const args = uc.args[0]?.name === 'ownerId' ? ['theirs', 42, 42] : [];
      const err = await call(scoped, ...args).catch((e: unknown) => e);
      expect(isKeepGraphError(err) && err.code, name).toBe('owner_out_of_scope');
      checked++;
    }
    expect(checked).toBe(Object.keys(USE_CASES).length - 2);
  });

  it('runs a use-case scoped by the caller for any scope, reading only its own owners', async () => {
    const asked: unknown[][] = [];
    const store = new Proxy({} as MemoryStore, {
      get(_t, prop) {
        if (prop === 'then') return undefined;
        if (prop !== 'countMemories') throw new Error(`store.${String(prop)} was reached`);
        return async (...a: unknown[]) => {
          asked.push(a);
          return a[0] === 'mine' ? 2 : 0;
        };
      },
    });
    const own = createEngine({
      store,
      embedder: untouchable<Embedder>('embedder'),
      policy: defaultPolicy(),
      clock: systemClock,
    });
    const scoped = {
      role: 'analyst' as const,
      owners: ['mine', 'empty'],
      principal: 'key:k1',
      expiresAt: null,
    };
    expect(await own.whoami(scoped)).toEqual({
      principal: 'key:k1',
      role: 'analyst',
      owners: ['mine', 'empty'],
      expiresAt: null,
    });
    expect(await own.listOwners(scoped)).toEqual({
      owners: [{ ownerId: 'mine', memories: 2 }],
      next: null,
    });
    expect(asked.map((a) => a[0]).sort()).toEqual(['empty', 'mine']);
    expect(USE_CASES.whoami.scope).toBe('caller');
    expect(USE_CASES.listOwners.scope).toBe('caller');
  });
});
