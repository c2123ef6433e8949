// API keys and JWTs against `keepgraph start` as users run it, on each store:
// keys made with the CLI, used over HTTP, revoked by another process; writes
// capped at the role's authority; 2,000 forged, random and malformed bearer
// tokens answered 401 or 429 with nothing written; and, at the end, no key
// in plaintext in any byte of the store's files or of the server's log.
import { randomBytes, randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, startKeepGraph, type KeepGraphProcess } from './keepgraph-process.ts';
import { filesUnder, storeEnv } from './stores.ts';
import { JWT_ENV, b64, jwt, now, validClaims } from './jwt.ts';
import { neo4jUri } from '../services.ts';
import { keepgraphArgv, keepgraphEnv } from '../keepgraph-cli.ts';
import { STORE_KINDS } from '@keepgraph/runtime';

const root = resolve(import.meta.dirname, '../..');

describe.each(STORE_KINDS)('API keys and JWTs on keepgraph start over %s', (store) => {
  let server: KeepGraphProcess;
  const dataDir = mkdtempSync(join(tmpdir(), `kg-keys-${store}-`));
  const run = randomUUID().slice(0, 8);
  const [a, b, c] = ['a', 'b', 'c'].map((x) => `${x}-${run}`) as [string, string, string];
  const env = (): Record<string, string> => ({
    ...storeEnv(store),
    // No background jobs: nothing here needs them.
    KEEPGRAPH_SWEEP_INTERVAL_MS: '0',
    ...JWT_ENV,
  });
  /** Every key this test saw: none may be left in plaintext anywhere. */
  const seen: string[] = [];

  async function call(key: string | null, method: string, path: string, body?: unknown) {
    const r = await fetch(`${server.base}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(key === null ? {} : { authorization: `Bearer ${key}` }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    return {
      status: r.status,
      // Checked field by field in the tests; a loose type keeps them readable.
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      json: (text ? JSON.parse(text) : null) as any,
      headers: r.headers,
    };
  }
  const keepgraph = (args: string[]) =>
    promisify(execFile)(process.execPath, keepgraphArgv(...args, '--data', dataDir), {
      cwd: root,
      env: keepgraphEnv({ ...env(), KEEPGRAPH_DEBUG: '' }),
    }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => ({
        code: e.code,
        stdout: e.stdout,
        stderr: e.stderr,
      }),
    );

  beforeAll(async () => {
    server = await startKeepGraph(dataDir, env());
    seen.push(server.operatorKey);
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keys create prints the key once, as JSON with --json; list shows neither key nor hash; bad flags are refused', async () => {
    const made = createKey(dataDir, env(), [
      '--role',
      'agent',
      '--owners',
      `${a},${b}`,
      '--name',
      'support bot',
      '--expires',
      '90d',
    ]);
    seen.push(made.key);
    expect(Object.keys(made).sort()).toEqual(['expiresAt', 'id', 'key', 'name', 'owners', 'role']);
    expect(made).toMatchObject({ name: 'support bot', role: 'agent', owners: [a, b] });
    expect(made.key).toMatch(/^kgk_[0-9a-f]{16}_[0-9A-Za-z_-]{43}$/);
    const days =
      (Date.parse((made as unknown as { expiresAt: string }).expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89.9);
    expect(days).toBeLessThan(90.1);

    const list = await keepgraph(['keys', 'list', '--json']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(made.id);
    expect(list.stdout).not.toContain(made.key.slice(21));
    expect(list.stdout).not.toMatch(/keyHash|[0-9a-f]{64}/);

    for (const [flags, says] of [
      [['--role', 'user', '--name', 'x'], /--owners/],
      [['--role', 'user', '--name', 'x', '--owners', a, '--all-owners'], /exactly one/],
      [['--role', 'operator', '--name', 'x', '--owners', a], /every owner/],
      [['--name', 'x', '--all-owners'], /--role is required/],
      [['--role', 'user', '--name', 'x', '--all-owners', '--expires', 'soon'], /invalid duration/],
    ] as const) {
      const r = await keepgraph(['keys', 'create', ...flags]);
      expect(r.code, flags.join(' ')).toBe(1);
      expect(r.stderr).toMatch(says);
    }
  });

  it('caps writes at the role: an agent key writing user or operator authority is 403 authority_exceeds_role; its owners only', async () => {
    const agent = createKey(dataDir, env(), ['--role', 'agent', '--owners', a, '--name', 'agent']);
    seen.push(agent.key);
    const base = await call(server.operatorKey, 'POST', `/v1/owners/${a}/memories`, {
      kind: 'fact',
      text: 'The user prefers window seats on long flights.',
      origin: { sessionId: 's1' },
    });
    expect(base.status).toBe(201);
    for (const authority of ['user', 'operator']) {
      const r = await call(agent.key, 'POST', `/v1/owners/${a}/memories`, {
        kind: 'fact',
        authority,
        text: 'The user said they prefer aisle seats now.',
        origin: { sessionId: 's1' },
        derivedFrom: [base.json.memory.id],
      });
      expect(r.status, authority).toBe(403);
      expect(r.json.error.code).toBe('authority_exceeds_role');
    }
    const inferred = await call(agent.key, 'POST', `/v1/owners/${a}/memories`, {
      kind: 'fact',
      text: 'The user probably prefers seats with more legroom.',
      origin: { sessionId: 's1' },
      derivedFrom: [base.json.memory.id],
    });
    expect(inferred.status).toBe(201);
    expect(inferred.json.memory.authority).toBe('agent_inferred');
    expect(inferred.json.memory.origin.writtenBy).toBe(`key:${agent.id}`);
    const recall = await call(agent.key, 'POST', `/v1/owners/${a}/recall`, { query: 'seats' });
    expect(recall.status).toBe(200);
    const elsewhere = await call(agent.key, 'POST', `/v1/owners/${c}/recall`, { query: 'seats' });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.json.error.code).toBe('owner_out_of_scope');
    // The audit names the key of every write and read.
    const audit = await call(server.operatorKey, 'GET', `/v1/audit?ownerId=${a}&limit=1000`);
    const actors = new Set(
      (audit.json.events as { type: string; actor: string }[])
        .filter((e) => e.type === 'write' || e.type === 'read')
        .map((e) => e.actor),
    );
    expect(actors).toContain(`key:${agent.id}`);
  });

  it('refuses a key revoked by another process (the CLI) on its next request', async () => {
    const k = createKey(dataDir, env(), ['--role', 'user', '--owners', b, '--name', 'to revoke']);
    seen.push(k.key);
    expect((await call(k.key, 'POST', `/v1/owners/${b}/recall`, { query: 'x' })).status).toBe(200);
    const revoked = await keepgraph(['keys', 'revoke', k.id, '--json']);
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id: k.id, live: false });
    const after = await call(k.key, 'POST', `/v1/owners/${b}/recall`, { query: 'x' });
    expect(after.status).toBe(401);
    expect(after.json.error.code).toBe('unauthenticated');
    const keys = await call(server.operatorKey, 'GET', '/v1/keys');
    expect(keys.json.keys.find((x: { id: string }) => x.id === k.id).revokedAt).not.toBeNull();
  });

  it('takes JWTs from the configured issuer for their audience, with role and owners from claims', async () => {
    const claims = validClaims('alice', 'user', [a]);
    const good = jwt(claims);
    seen.push(good);
    expect((await call(good, 'POST', `/v1/owners/${a}/recall`, { query: 'seats' })).status).toBe(
      200,
    );
    const out = await call(good, 'POST', `/v1/owners/${c}/recall`, { query: 'seats' });
    expect(out.json.error.code).toBe('owner_out_of_scope');
    const w = await call(good, 'POST', `/v1/owners/${a}/memories`, {
      kind: 'fact',
      text: 'Alice likes quiet hotel rooms.',
      origin: { sessionId: 'j1' },
    });
    expect(w.status).toBe(201);
    expect(w.json.memory.origin.writtenBy).toBe('jwt:alice');
    expect(w.json.memory.authority).toBe('user');
  });

  it('answers 2,000 random, malformed and forged bearer tokens with 401 or 429, never a 5xx, and writes nothing', async () => {
    const lastSeq = async () => {
      let after = 0;
      for (;;) {
        const page = await call(
          server.operatorKey,
          'GET',
          `/v1/audit?limit=1000&afterSeq=${after}`,
        );
        const events = page.json.events as { seq: number }[];
        if (events.length === 0) return after;
        after = events[events.length - 1]!.seq;
      }
    };
    const seqBefore = await lastSeq();
    const counts = async () =>
      (await call(server.operatorKey, 'GET', '/v1/kpis')).json.memories as number;
    const memoriesBefore = await counts();

    const real = createKey(dataDir, env(), ['--role', 'user', '--owners', a, '--name', 'real']);
    seen.push(real.key);
    const valid = validClaims('mallory', 'user', [a]);
    const forged: string[] = [
      jwt(valid, { alg: 'none' }),
      jwt(valid, { secret: 'not-the-secret-not-the-secret-00' }),
      jwt({ ...valid, aud: 'someone-else' }),
      jwt({ ...valid, iss: 'https://evil.test/' }),
      jwt({ ...valid, exp: now() - 60 }),
      jwt({ ...valid, nbf: now() + 3600 }),
      jwt({ ...valid, sub: undefined }),
      jwt({ ...valid, exp: undefined }),
      jwt({ ...valid, keepgraph_role: 'root' }),
      jwt({ ...valid, keepgraph_role: 'operator' }),
      jwt({ ...valid, keepgraph_owners: 'everyone' }),
      jwt({ ...valid, keepgraph_owners: [] }),
      jwt(valid, { alg: 'HS512' }),
      `${real.key.slice(0, -1)}${real.key.endsWith('A') ? 'B' : 'A'}`,
      real.key.slice(0, -2),
      `${real.key}x`,
      `kgk_${real.id}_${randomBytes(32).toString('base64url')}`,
      `kgk_${'0'.repeat(16)}_${randomBytes(32).toString('base64url')}`,
      'eyJ.eyJ.',
      '...',
      'kgk_',
    ];
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~+/=';
    const tokens: { header: string }[] = [];
    for (let i = 0; tokens.length < 2000; i++) {
      const pick = i % 6;
      const rnd = randomBytes(1 + (i % 300));
      let t: string;
      if (pick === 0) t = forged[i % forged.length]!;
      else if (pick === 1) t = [...rnd].map((x) => alphabet[x % alphabet.length]).join('');
      else if (pick === 2)
        t = `kgk_${rnd.toString('hex').slice(0, 16)}_${rnd.toString('base64url')}`;
      else if (pick === 3)
        t = `${b64({ alg: 'HS256' })}.${rnd.toString('base64url')}.${rnd.toString('base64url')}`;
      else if (pick === 4) t = jwt({ ...valid, sub: `m-${i}`, exp: now() - 1 - i });
      else t = rnd.toString('latin1').replace(/[^\x21-\x7e]/g, '');
      const header = [`Bearer ${t}`, `bearer  ${t}`, t, `Basic ${t}`, `Bearer`, `Bearer ${t} ${t}`][
        i % 6
      ]!;
      tokens.push({ header });
    }
    const statuses = new Map<number, number>();
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < tokens.length) {
          const { header } = tokens[next++]!;
          const r = await fetch(`${server.base}/v1/owners/${a}/memories`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: header },
            body: JSON.stringify({
              kind: 'fact',
              text: 'A forged write that must not land.',
              origin: { sessionId: 'f' },
            }),
          }).catch(() => null);
          const s = r?.status ?? -1;
          if (r) await r.arrayBuffer();
          statuses.set(s, (statuses.get(s) ?? 0) + 1);
        }
      }),
    );
    console.log(
      `[keys:${store}] 2000 bad tokens: ${[...statuses].map(([s, n]) => `${n} x ${s}`).join(', ')}`,
    );
    expect(
      [...statuses.keys()].every((s) => s === 401 || s === 429),
      JSON.stringify([...statuses]),
    ).toBe(true);
    expect((statuses.get(401) ?? 0) + (statuses.get(429) ?? 0)).toBe(2000);
    expect(await counts()).toBe(memoriesBefore);
    // The one write since is the key made above; no forged token wrote an event.
    const after = await call(
      server.operatorKey,
      'GET',
      `/v1/audit?limit=1000&afterSeq=${seqBefore}`,
    );
    expect((after.json.events as { type: string }[]).map((e) => e.type)).toEqual(['key_created']);
    // A 429 says when to come back.
    const limited = await call('garbage', 'GET', '/v1/keys');
    if (limited.status === 429)
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  }, 180_000);

  it('leaves no key in plaintext in any byte of the store files or the server log', async () => {
    await server.stop();
    const secrets = seen.flatMap((k) =>
      k.startsWith('kgk_') ? [k, k.slice(21)] : [k.split('.')[2]!],
    );
    expect(secrets.length).toBeGreaterThan(8);
    // DATA_DIR/operator.key holds the first operator key by design (mode 0600).
    const files = filesUnder(dataDir).filter((f) => !f.endsWith('operator.key'));
    if (store === 'neo4j') {
      const port = new URL(neo4jUri()).port;
      const neo4jData = join(root, '.tmp/neo4j', port === '7687' ? 'data' : `data-${port}`);
      files.push(...filesUnder(neo4jData));
    }
    expect(files.length).toBeGreaterThan(0);
    const log = server.log();
    for (const s of secrets) {
      const inFiles = files.filter((f) => readFileSync(f).includes(s));
      expect(inFiles, 'store files holding a key').toEqual([]);
      // The first start prints its operator key once, by design; no other key reaches the log.
      if (!server.operatorKey.includes(s)) expect(log.includes(s), 'a key in the log').toBe(false);
    }
    expect(log).toContain('request completed');
  });
});
