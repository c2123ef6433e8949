// Idempotency-Key records on every store: of many parallel claims of one key
// exactly one runs and the rest get its answer; another request under the
// key is refused; a failed first request lets the key go; an expired record
// is claimed anew; and deleting a memory an answer names drops the answer
// (it may hold the text) while a repeat still writes nothing. Forgetting the
// owner deletes its records. A record is the credential's own (principal,
// role and owners), and keeps neither the key, nor an error's message, nor
// the values of the request's path parameters.
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import {
  IDEMPOTENCY_TTL_MS,
  KeepGraphError,
  REPLAYED_ERROR_MESSAGE,
  answerOnce,
  type Answer,
  type Caller,
} from '@keepgraph/core';
import {
  agent,
  atRest,
  conformanceSuite,
  expectCode,
  user,
  userEpisode,
  verifyReceipt,
} from '../harness.ts';

export const idempotencySuite = conformanceSuite('idempotency records', (f, opts) => {
  /** answerOnce over this store, the request being a remember of `text`. */
  const rememberOnce = (o: string, key: string, text: string, caller: Caller = user) =>
    answerOnce(
      f.engine.deps,
      {
        caller,
        key,
        ownerId: o,
        request: { method: 'POST', url: `/owners/${o}/memories`, body: { text } },
      },
      async (): Promise<Answer> => ({
        status: 201,
        body: await userEpisode(f, o, text),
      }),
      { waitMs: 60_000, pollMs: 10 },
    );

  it('runs one of 50 parallel repeats and answers all of them with its answer', async () => {
    const o = f.owner();
    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => rememberOnce(o, key, 'The user moved to Porto last spring')),
    );
    expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
    const ids = new Set(answers.map((a) => (a.body as { memory: { id: string } }).memory.id));
    expect(ids.size).toBe(1);
    expect(await f.store.listIds(o)).toEqual([...ids]);
    // Another caller's key of the same name is its own.
    const other = await rememberOnce(o, key, 'The user moved to Porto last spring', {
      ...agent,
      principal: 'agent:other',
    });
    expect(other.replayed).toBe(false);
    expect(await f.store.listIds(o)).toHaveLength(2);
  });

  it('refuses the key with another request, and writes nothing', async () => {
    const o = f.owner();
    const key = randomUUID();
    await rememberOnce(o, key, 'The user drinks green tea in the morning');
    await expectCode(
      rememberOnce(o, key, 'The user drinks black coffee at night'),
      'idempotency_key_reused',
    );
    await expectCode(rememberOnce(o, 'has a space', 'The user drinks water'), 'invalid_input');
    expect(await f.store.listIds(o)).toHaveLength(1);
  });

  it('lets the key go when the first request fails, so a retry runs', async () => {
    const o = f.owner();
    const key = randomUUID();
    const req = { caller: user, key, ownerId: o, request: { n: 1 } };
    await expect(
      answerOnce(f.engine.deps, req, async () => {
        throw new KeepGraphError('store_unavailable', 'down');
      }),
    ).rejects.toThrow('down');
    const faulted = await answerOnce(f.engine.deps, req, async () => ({ status: 503, body: {} }));
    expect(faulted.replayed).toBe(false);
    const ok = await answerOnce(f.engine.deps, req, async () => ({
      status: 200,
      body: { ok: 1 },
    }));
    expect(ok).toEqual({ status: 200, body: { ok: 1 }, replayed: false });
    const again = await answerOnce(f.engine.deps, req, async () => ({
      status: 200,
      body: { ok: 2 },
    }));
    expect(again).toEqual({ status: 200, body: { ok: 1 }, replayed: true });
  });

  it('answers a new request once the record has expired', async () => {
    const o = f.owner();
    const key = randomUUID();
    const req = { caller: user, key, ownerId: o, request: { n: 1 } };
    await answerOnce(f.engine.deps, req, async () => ({ status: 200, body: { first: true } }));
    f.clock.advance(IDEMPOTENCY_TTL_MS + 1000);
    const later = await answerOnce(f.engine.deps, { ...req, request: { n: 2 } }, async () => ({
      status: 200,
      body: { first: false },
    }));
    expect(later).toEqual({ status: 200, body: { first: false }, replayed: false });
  });

  it('drops an answer with the memory it names, and still writes nothing on a repeat', async () => {
    const o = f.owner();
    const key = randomUUID();
    const text = 'The user keeps a spare key under the blue flowerpot';
    const first = await rememberOnce(o, key, text);
    const id = (first.body as { memory: { id: string } }).memory.id;
    expect(
      (await f.engine.verifyForgotten(user, o, { ids: [id] })).traces.map((t) => t.where),
    ).toContain(opts.name === 'neo4j' ? 'IdempotencyRecord' : 'idempotency');
    const receipt = await f.engine.forget(user, o, [id]);
    expect(await verifyReceipt(f, o, receipt)).toMatchObject({ forgotten: true, traces: [] });
    expect((await f.sut.rawContent()).includes(Buffer.from(text))).toBe(false);
    await expectCode(rememberOnce(o, key, text), 'not_found');
    expect(await f.store.listIds(o)).toEqual([]);
  });

  it('keeps no link to what a replayed deletion deleted, so the deletion verifies', async () => {
    const o = f.owner();
    const m = await userEpisode(f, o, 'The user parks on level three');
    const req = {
      caller: user,
      key: randomUUID(),
      ownerId: o,
      request: { forget: m.memory.id },
    };
    const run = async (): Promise<Answer> => ({
      status: 200,
      body: await f.engine.forget(user, o, [m.memory.id]),
    });
    const first = await answerOnce(f.engine.deps, req, run);
    expect((await answerOnce(f.engine.deps, req, run)).replayed).toBe(true);
    const receipt = first.body as { deletedMemoryIds: string[]; deletedContentHashes: string[] };
    expect(await verifyReceipt(f, o, receipt)).toMatchObject({ forgotten: true, traces: [] });
  });

  it("is the credential's own: another role or another owner list of one principal is not replayed to", async () => {
    const o = f.owner();
    const key = randomUUID();
    const text = 'The user waters the ferns on Sundays';
    const scoped: Caller = { ...user, owners: [o, `${o}-b`] };
    expect((await rememberOnce(o, key, text, scoped)).replayed).toBe(false);
    // The same owners in another order are the same credential.
    expect((await rememberOnce(o, key, text, { ...scoped, owners: [`${o}-b`, o] })).replayed).toBe(
      true,
    );
    for (const other of [
      { ...scoped, owners: [o] },
      { ...scoped, owners: 'all' as const },
      { ...scoped, role: 'tool' as const },
    ])
      expect((await rememberOnce(o, key, text, other)).replayed, JSON.stringify(other)).toBe(false);
    expect(await f.store.listIds(o)).toHaveLength(4);
  });

  it('keeps a keyed hash of the key, and of an error only its status and code', async () => {
    const o = f.owner();
    // A secret sent as the key by mistake, and a message that quotes input.
    const key = `ghp_${randomUUID().replaceAll('-', '')}Zq9`;
    const quoted = `unrecognized key ${randomUUID()}`;
    const req = { caller: user, key, ownerId: o, request: { n: 1 } };
    const first = await answerOnce(f.engine.deps, req, async () => ({
      status: 400,
      body: { error: { code: 'invalid_input', message: quoted, details: { quoted } } },
    }));
    expect(first).toMatchObject({ status: 400, replayed: false });
    expect((first.body as { error: { message: string } }).error.message).toBe(quoted);
    const again = await answerOnce(f.engine.deps, req, async () => ({ status: 200, body: {} }));
    expect(again).toEqual({
      status: 400,
      body: { error: { code: 'invalid_input', message: REPLAYED_ERROR_MESSAGE } },
      replayed: true,
    });
    const kept = await atRest(f);
    expect(kept(key)).toBe(false);
    expect(kept(quoted)).toBe(false);
  });

  it("keeps no value of the request's path parameters, and gives them back from the repeat", async () => {
    const o = f.owner();
    const sessionId = `s-${randomUUID()}`;
    const params = { ownerId: o, sessionId };
    const req = { caller: user, key: randomUUID(), ownerId: o, request: { sessionId }, params };
    const body = { ownerId: o, sessionId, nested: [{ sessionId }], count: 2 };
    const first = await answerOnce(f.engine.deps, req, async () => ({ status: 200, body }));
    expect(first).toEqual({ status: 200, body, replayed: false });
    expect((await f.sut.rawContent()).includes(Buffer.from(sessionId))).toBe(false);
    const again = await answerOnce(f.engine.deps, req, async () => ({ status: 200, body: {} }));
    expect(again).toEqual({ status: 200, body, replayed: true });
  });

  it('goes with its owner', async () => {
    const o = f.owner();
    const key = randomUUID();
    await rememberOnce(o, key, 'The user studies Portuguese on Tuesdays');
    const receipt = await f.engine.forgetOwner(user, o);
    expect(receipt.deletedMemoryIds).toHaveLength(1);
    // A repeat after the owner is forgotten is a new request.
    const again = await rememberOnce(o, key, 'The user studies Portuguese on Tuesdays');
    expect(again.replayed).toBe(false);
  });
});
