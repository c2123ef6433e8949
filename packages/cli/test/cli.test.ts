// End-to-end tests of the `keepgraph` command: each spawns the real CLI (as
// `pnpm keepgraph` runs it, through tsx) against a temporary data directory
// with the real local embedding model.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { keepgraphArgv, keepgraphEnv } from '../../../test/keepgraph-cli.ts';

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let dataDir: string;

/** Run `keepgraph --data <tmp> ...args` from the repository root. */
function keepgraph(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      keepgraphArgv('--data', dataDir, ...args),
      {
        cwd: ROOT,
        // A stray KEEPGRAPH_DEBUG would add stack traces to stderr.
        env: keepgraphEnv({ KEEPGRAPH_DEBUG: '', ...env }),
        timeout: 120_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

const owner = () => `owner-${randomUUID()}`;

/** The arguments of `remember --owner <ownerId> --kind fact --text <text>`, then `extra`. */
function rememberFact(ownerId: string, text: string, extra: string[] = []): string[] {
  return ['remember', '--owner', ownerId, '--kind', 'fact', '--text', text, ...extra];
}

/** Remember with a session origin; returns the new id. */
async function remember(ownerId: string, text: string, extra: string[] = []): Promise<string> {
  const r = await keepgraph(rememberFact(ownerId, text, ['--session', 's1', ...extra]));
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout.trim();
}

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'models')))
    throw new Error('models missing: run `bash scripts/setup-models.sh`');
  dataDir = await mkdtemp(join(tmpdir(), 'keepgraph-cli-'));
});

afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

// Each CLI run loads the model (a few seconds); a test spawns up to seven.
describe('keepgraph CLI', { timeout: 180_000 }, () => {
  it('remembers, then recall --json finds the memory with its origin', async () => {
    const o = owner();
    const id = await remember(o, 'The user is allergic to peanuts and carries an epipen', [
      '--turn',
      '3',
      '--tag',
      'health',
    ]);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);

    const r = await keepgraph(['recall', '--owner', o, '--query', 'peanut allergy', '--json']);
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout) as {
      ownerId: string;
      results: {
        memory: { id: string; tags: string[] };
        origin: Record<string, unknown>;
        authority: string;
      }[];
    };
    expect(result.ownerId).toBe(o);
    const hit = result.results.find((h) => h.memory.id === id);
    expect(hit).toBeDefined();
    expect(hit!.origin).toMatchObject({ sessionId: 's1', turn: '3', writtenBy: 'cli' });
    expect(hit!.authority).toBe('user');
    expect(hit!.memory.tags).toEqual(['health']);

    const human = await keepgraph(['recall', '--owner', o, '--query', 'peanut allergy']);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(
      /^1\. \d\.\d{3} fact user \[session s1, turn 3\] The user is allergic to peanuts/,
    );
    expect(human.stdout).toContain(id);
  });

  it('refuses a memory holding an AWS access key id: exit 2 and the reason code', async () => {
    const r = await keepgraph(
      rememberFact(owner(), 'deploy with access key AKIAQ3RT7XZP2LMN4VBW for the staging account', [
        '--session',
        's1',
      ]),
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^refused: refused_secret: /);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('rejects bad flags before opening anything: exit 1, no stack', async () => {
    const r = await keepgraph(['recall', '--owner', 'o', '--query', 'q', '--k', 'many']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("option '--k <n>' argument 'many' is invalid");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('speaks in flags when an origin is missing, and exits 1 on exporting an owner that holds nothing, leaving no file', async () => {
    const r = await keepgraph(rememberFact(owner(), 'The user keeps bees on the roof'));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: invalid_input: say where the memory came from: .*--session/);
    expect(r.stderr).not.toContain('sessionId');
    const file = join(dataDir, 'nobody.jsonl');
    const ex = await keepgraph(['export', '--owner', owner(), '--out', file]);
    expect(ex.code).toBe(1);
    expect(ex.stderr).toMatch(/not_found: owner \S+ holds no memories/);
    expect(existsSync(file)).toBe(false);
  });

  it('export then import into another owner round-trips the count', async () => {
    const a = owner();
    const b = owner();
    await remember(a, 'The user prefers window seats on short flights');
    await remember(a, 'The user works as a structural engineer in Porto', ['--key', 'job']);
    await remember(a, 'The user is learning to play the cello');
    const file = join(dataDir, `${a}.jsonl`);

    const ex = await keepgraph(['export', '--owner', a, '--out', file]);
    expect(ex.code).toBe(0);
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(3);
    const first = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(first).toMatchObject({ ownerId: a, kind: 'fact', authority: 'user' });
    expect(first).toHaveProperty('contentHash');

    const im = await keepgraph(['import', '--owner', b, '--in', file]);
    expect(im.code).toBe(0);
    expect(im.stdout.trim()).toBe('imported 3, refused 0');

    const back = await keepgraph(['export', '--owner', b]);
    expect(back.code).toBe(0);
    const imported = back.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { ownerId: string; text: string; key: string | null });
    expect(imported).toHaveLength(3);
    expect(imported.every((m) => m.ownerId === b)).toBe(true);
    expect(imported.map((m) => m.text).sort()).toEqual(
      lines.map((l) => (JSON.parse(l) as { text: string }).text).sort(),
    );
    expect(imported.find((m) => m.key === 'job')?.text).toContain('structural engineer');
  });

  it('import counts refusals by code and keeps going', async () => {
    const o = owner();
    const file = join(dataDir, `${o}-inputs.jsonl`);
    const good = {
      kind: 'fact',
      text: 'The user drinks their coffee black',
      origin: { sessionId: 's9' },
    };
    const lines = [
      JSON.stringify(good),
      JSON.stringify({ ...good, text: 'token AKIAQ3RT7XZP2LMN4VBW goes here' }),
      'not json',
      JSON.stringify({ kind: 'fact', text: 'The user has two cats named Oz and Ada' }),
      JSON.stringify({ ...good, text: 'The user runs every Tuesday morning' }),
    ];
    await writeFile(file, `${lines.join('\n')}\n`);
    const r = await keepgraph(['import', '--owner', o, '--in', file, '--batch', '2']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(
      'imported 2, refused 3 (by code: invalid_input=1, invalid_json=1, refused_secret=1)',
    );
    expect(r.stderr).toContain('line 2: refused_secret');
  });

  it('forget prints the receipt and proves the memory forgotten', async () => {
    const o = owner();
    const id = await remember(o, 'The user is planning a trip to Kyoto in April');
    const r = await keepgraph(['forget', '--owner', o, '--id', id]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^deleted 1 memories \(1 requested, 0 derived\)/);
    expect(r.stdout).toContain('embeddings 1');
    expect(r.stdout).toMatch(/^verified: forgotten/m);

    const again = await keepgraph(['recall', '--owner', o, '--query', 'Kyoto trip', '--json']);
    expect((JSON.parse(again.stdout) as { results: unknown[] }).results).toEqual([]);
  });

  it('forget --dry-run lists what would go and deletes nothing; reads lists the recall and the dry run that served it', async () => {
    const o = owner();
    const id = await remember(o, 'The user keeps the spare bike key in the blue drawer');
    const dry = await keepgraph(['forget', '--owner', o, '--id', id, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^would delete 1 memories \(1 requested, 0 derived\)/);
    expect(dry.stdout).toContain(`root fact user The user keeps the spare bike key`);
    const recall = await keepgraph(['recall', '--owner', o, '--query', 'spare bike key', '--json']);
    const served = JSON.parse(recall.stdout) as {
      requestId: string;
      results: { memory: { id: string } }[];
    };
    expect(served.results.map((h) => h.memory.id)).toEqual([id]);
    const reads = await keepgraph(['reads', '--owner', o, '--memory', id, '--json']);
    expect(reads.code, reads.stderr).toBe(0);
    expect(JSON.parse(reads.stdout)).toMatchObject({
      reads: [
        { requestId: served.requestId, principal: 'cli', memoryIds: [id] },
        // The dry run showed what the memory says: a read of it too.
        { principal: 'cli', memoryIds: [id] },
      ],
    });
    const text = await keepgraph(['reads', '--owner', o]);
    expect(text.stdout).toContain(`request=${served.requestId} served ${id}`);
  });

  it('revoke-source --dry-run lists what came from a URL; revoke-source deletes it and proves it; kpis prints the new figures', async () => {
    const o = owner();
    const url = `https://example.com/${o}`;
    const id = await remember(o, 'The farmers market moved to Saturdays, says the town page', [
      '--source-url',
      url,
    ]);
    const dry = await keepgraph([
      'revoke-source',
      '--owner',
      o,
      '--uri',
      url,
      '--dry-run',
      '--json',
    ]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, memoryIds: [id] });
    const done = await keepgraph(['revoke-source', '--owner', o, '--uri', url]);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/^deleted 1 memories/);
    expect(done.stdout).toMatch(/^verified: forgotten/m);
    const neither = await keepgraph(['revoke-source', '--owner', o]);
    expect(neither.code).toBe(1);
    expect(neither.stderr).toMatch(/invalid_input/);
    const k = await keepgraph(['kpis']);
    expect(k.code, k.stderr).toBe(0);
    expect(k.stdout).toMatch(/^median age: +(\d+ ms|-)$/m);
    expect(k.stdout).toMatch(/^deletion to gone: +p50 \d+ ms, max \d+ ms \(\d+ cascades timed\)$/m);
    expect(k.stdout).toMatch(/^ {2}\d{4}-\d{2}-\d{2} /m);
  });

  it('correct supersedes a memory; a bad reason is refused in flags and writes nothing', async () => {
    const o = owner();
    const id = await remember(o, 'The team meets on Tuesdays at ten');
    const correct = (text: string, ...flags: string[]) =>
      keepgraph(['correct', '--owner', o, '--id', id, '--text', text, ...flags]);
    const bad = await correct('x', '--reason', 'whim');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--reason/);
    const r = await correct(
      'The team meets on Wednesdays at ten',
      '--reason',
      'outdated',
      '--json',
    );
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as {
      memory: { id: string; supersedes: string };
      superseded: boolean;
    };
    expect(out).toMatchObject({ superseded: true, memory: { supersedes: id } });
    const again = await correct('The team meets on Fridays');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/conflict: memory .* was superseded/);
    const listed = await keepgraph(['list', '--owner', o, '--json']);
    expect(
      (JSON.parse(listed.stdout) as { memories: { id: string }[] }).memories.map((m) => m.id),
    ).toEqual([out.memory.id]);
  });

  it('session show prints the messages; session forget --dry-run lists what would go, then forget deletes it', async () => {
    const o = owner();
    const id = await remember(o, 'The user plans a week in Kyoto in April', ['--turn', '1']);
    const shown = await keepgraph(['session', 'show', '--owner', o, '--session', 's1']);
    expect(shown.code).toBe(1);
    expect(shown.stderr).toMatch(/not_found/);
    const dry = await keepgraph([
      'session',
      'forget',
      '--owner',
      o,
      '--session',
      's1',
      '--dry-run',
      '--json',
    ]);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, memoryIds: [id], observed: [id] });
    const done = await keepgraph(['session', 'forget', '--owner', o, '--session', 's1']);
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/^deleted 1 memories/);
    const list = await keepgraph(['list', '--owner', o, '--json']);
    expect((JSON.parse(list.stdout) as { memories: unknown[] }).memories).toEqual([]);
  });

  it('why prints each hit with its derivation tree', async () => {
    const o = owner();
    const ep = await remember(o, 'In session one the user said they never fly overnight');
    const rule = await keepgraph([
      'remember',
      '--owner',
      o,
      '--kind',
      'rule',
      '--session',
      's1',
      '--text',
      'The user avoids overnight flights',
      '--derived-from',
      ep,
    ]);
    expect(rule.code).toBe(0);
    const r = await keepgraph(['why', '--owner', o, '--query', 'overnight flights', '--k', '2']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/rule user .*The user avoids overnight flights/);
    expect(r.stdout).toMatch(
      new RegExp(`└─ derived from fact user \\[session s1\\] .*\\(id ${ep}\\)`),
    );
  });

  it('audit verify reports an intact chain; audit and kpis run as operator', async () => {
    const v = await keepgraph(['audit', 'verify']);
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(/^ok: \d+ events checked/);

    const k = await keepgraph(['kpis', '--json']);
    expect(k.code).toBe(0);
    expect(JSON.parse(k.stdout)).toMatchObject({ attributedShare: 1 });

    const denied = await keepgraph(['--role', 'agent', 'audit', 'list']);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/^error: forbidden_role: /);
  });
});

describe('keepgraph worker', { timeout: 180_000 }, () => {
  it('purges expired memories on its schedule and stops cleanly on SIGTERM', async () => {
    // A policy whose kv TTL may be as short as one second, so the test waits seconds, not minutes.
    const policyFile = join(dataDir, 'short-ttl-policy.yaml');
    const { DEFAULT_POLICY_PATH } = await import('@keepgraph/core/policy');
    const yaml = await readFile(DEFAULT_POLICY_PATH, 'utf8');
    const short = yaml.replace(
      'ttl: { default: 365d, min: 60s, max: 3650d }',
      'ttl: { default: 365d, min: 1s, max: 3650d }',
    );
    expect(short).not.toBe(yaml);
    await writeFile(policyFile, short);
    const o = owner();
    const put = await keepgraph([
      '--policy',
      policyFile,
      'remember',
      '--owner',
      o,
      '--kind',
      'kv',
      '--key',
      'door-code',
      '--text',
      'temporary door code is 4417',
      '--session',
      's1',
      '--ttl',
      '2',
    ]);
    expect(put.code, put.stderr).toBe(0);

    const { spawn } = await import('node:child_process');
    const worker = spawn(
      process.execPath,
      keepgraphArgv('--data', dataDir, '--policy', policyFile, 'worker'),
      {
        cwd: ROOT,
        env: keepgraphEnv({
          KEEPGRAPH_DEBUG: '',
          KEEPGRAPH_REDIS_URL: inject('redisUrl'),
          KEEPGRAPH_REDIS_PREFIX: `kgcli-${randomUUID().slice(0, 8)}`,
          KEEPGRAPH_SWEEP_INTERVAL_MS: '200',
        }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    worker.stdout.on('data', (d) => (out += d));
    worker.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((done) => worker.on('exit', (code) => done(code)));
    // Wait for the model to load, the key to expire and a few sweeps to pass.
    for (let i = 0; i < 120 && !out.includes('worker running'); i++)
      await new Promise((r) => setTimeout(r, 250));
    expect(out).toContain('worker running');
    await new Promise((r) => setTimeout(r, 3000));
    worker.kill('SIGTERM');
    expect(await exited).toBe(0);

    const events = await keepgraph(['audit', 'list', '--owner', o, '--json']);
    expect(events.code, events.stderr).toBe(0);
    const types = (JSON.parse(events.stdout) as { type: string }[]).map((e) => e.type);
    expect(types).toContain('expire');
  });

  it('without Redis configured says what server mode needs, and exits 1', async () => {
    const r = await keepgraph(['worker'], { KEEPGRAPH_REDIS_URL: '' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('KEEPGRAPH_REDIS_URL');
  });
});
