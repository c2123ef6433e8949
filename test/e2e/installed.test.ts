// KeepGraph installed as a stranger installs it: the `keepgraph` tarball
// (scripts/pack.ts) installed with plain npm into an empty folder, its
// dependencies from the npm registry, then run through npx: --version,
// `start` on the embedded default (the embedding model installed into a
// cache folder on first run), the README's HTTP flow against it, and
// `keepgraph mcp` under an MCP client. Nothing of the workspace is on the
// module path of what runs.
//
// One substitution: better-sqlite3's install fetches a prebuilt binary from
// GitHub, which this machine cannot reach, and then compiles it (minutes on
// two cores). The test serves the binary the workspace's own install built
// for the same version, at the URL layout prebuild-install asks for
// (npm_config_better_sqlite3_binary_host, its documented mirror setting).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ForgottenCheck, RecallResult, RememberResult } from '@keepgraph/core';
import type { DeletionReceipt } from '@keepgraph/core/ports';
import { listeningOn } from './keepgraph-process.ts';
import { connectMcp } from './mcp-client.ts';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const SQLITE_DIR = join(root, 'packages/store-sqlite/node_modules/better-sqlite3');

/** A prebuild-install mirror holding the workspace's better-sqlite3 binary. */
async function betterSqliteMirror(dir: string): Promise<{ server: Server; url: string }> {
  const { version } = JSON.parse(await readFile(join(SQLITE_DIR, 'package.json'), 'utf8')) as {
    version: string;
  };
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const tarball = join(dir, name);
  await run('tar', ['czf', tarball, '-C', SQLITE_DIR, 'build/Release/better_sqlite3.node']);
  const body = await readFile(tarball);
  const server = createServer((req, res) => {
    if (req.url === `/v${version}/${name}`) res.writeHead(200).end(body);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('keepgraph installed from its tarball with npm', () => {
  let dir: string;
  let app: string;
  let mirror: { server: Server; url: string };
  let server: ChildProcess | undefined;
  let base = '';
  let operatorKey = '';
  let env: NodeJS.ProcessEnv;

  /** `npx keepgraph ARGS…` in the install folder. */
  const keepgraph = (...args: string[]) =>
    run('npx', ['--no-install', 'keepgraph', ...args], { cwd: app, env, encoding: 'utf8' });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'keepgraph-installed-'));
    app = join(dir, 'app');
    await mkdir(app);
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', join(root, 'scripts/pack.ts'), '--out', join(dir, 'packs')],
      { cwd: root, encoding: 'utf8' },
    );
    const tarball = stdout.trim().split('\n').at(-1)!;
    mirror = await betterSqliteMirror(dir);
    // Only what a stranger's shell has, plus the three settings named here.
    env = {
      PATH: process.env['PATH'],
      HOME: process.env['HOME'],
      ONNXRUNTIME_NODE_INSTALL_CUDA: 'skip',
      npm_config_better_sqlite3_binary_host: mirror.url,
      // The model goes to a cache folder of this test's own.
      XDG_CACHE_HOME: join(dir, 'cache'),
      // Where node-gyp finds Node's headers when it must compile
      // (scripts/installed-node22.sh sets it; absent on the test command's Node 20).
      ...(process.env['npm_config_nodedir'] && {
        npm_config_nodedir: process.env['npm_config_nodedir'],
      }),
    };
    await writeFile(join(app, 'package.json'), '{ "name": "stranger", "private": true }\n');
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], {
      cwd: app,
      env,
      encoding: 'utf8',
    });
  }, 600_000);

  afterAll(async () => {
    server?.kill('SIGTERM');
    await new Promise<void>((r) => mirror?.server.close(() => r()) ?? r());
    await rm(dir, { recursive: true, force: true });
  });

  it('answers --version with the package version', async () => {
    const { stdout } = await keepgraph('--version');
    const pkg = JSON.parse(
      await readFile(join(app, 'node_modules/keepgraph/package.json'), 'utf8'),
    ) as { version: string };
    expect(stdout.trim()).toBe(pkg.version);
  });

  it('starts on the embedded default, installing the model into its cache on first run', async () => {
    server = spawn(
      'npx',
      ['--no-install', 'keepgraph', '--data', join(dir, 'data'), 'start', '--port', '0'],
      { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const started = await listeningOn(server, 'installed keepgraph');
    base = started.base;
    operatorKey = (await readFile(join(dir, 'data/operator.key'), 'utf8')).trim();
    const health = (await (await fetch(`${base}/healthz`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ ok: true, store: 'sqlite', model: 'bge-small-en-v1.5-q' });
    expect(started.log()).toMatch(/model bge-small-en-v1\.5-q installed from .* into .*cache/);
  }, 180_000);

  it("runs the README's HTTP flow: a user key, a write, a recall, a forget proven", async () => {
    const call = async <T>(key: string, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      expect(res.status, `${method} ${path}`).toBeLessThan(300);
      return (await res.json()) as T;
    };
    const { key } = await call<{ key: string }>(operatorKey, 'POST', '/keys', {
      name: 'alex app',
      role: 'user',
      owners: ['alex'],
    });
    const ep = await call<RememberResult>(key, 'POST', '/owners/alex/memories', {
      kind: 'episode',
      text: 'Alex strongly dislikes finance clients after the last project',
      origin: { sessionId: 's1', turn: '3', speaker: 'Alex' },
    });
    const recall = await call<RecallResult>(key, 'POST', '/owners/alex/recall', {
      query: 'which clients should we avoid pitching to Alex?',
    });
    expect(recall.results[0]?.memory.id).toBe(ep.memory.id);
    expect(recall.results[0]?.origin).toMatchObject({ sessionId: 's1', turn: '3' });
    const receipt = await call<DeletionReceipt>(key, 'POST', '/owners/alex/forget', {
      ids: [ep.memory.id],
    });
    expect(receipt.deletedMemoryIds).toContain(ep.memory.id);
    const check = await call<ForgottenCheck>(key, 'POST', '/owners/alex/verify-forgotten', {
      ids: [ep.memory.id],
      contentHashes: receipt.deletedContentHashes,
    });
    expect(check.forgotten).toBe(true);
  });

  it('serves an MCP client through `npx keepgraph mcp --url`', async () => {
    const { key } = (await (
      await fetch(`${base}/v1/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${operatorKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'mcp', role: 'user', owners: ['sam'] }),
      })
    ).json()) as { key: string };
    const client = await connectMcp(
      new StdioClientTransport({
        command: 'npx',
        args: ['--no-install', 'keepgraph', 'mcp', '--url', base, '--owner', 'sam'],
        cwd: app,
        env: { ...env, KEEPGRAPH_KEY: key } as Record<string, string>,
        stderr: 'pipe',
      }) as Transport,
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['remember', 'recall']));
      const stored = await client.callTool({
        name: 'remember',
        arguments: {
          kind: 'preference',
          text: 'Sam prefers window seats on trains',
          origin: { sessionId: 'mcp-1', turn: '1' },
        },
      });
      expect(stored.isError ?? false).toBe(false);
      const r = await client.callTool({ name: 'recall', arguments: { query: 'seat on a train' } });
      expect(r.isError ?? false).toBe(false);
      expect(JSON.stringify(r.structuredContent)).toContain('window seats');
    } finally {
      await client.close();
    }
  });
});
