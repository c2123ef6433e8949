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
import { transform } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ForgottenCheck, RecallResult, RememberResult } from '@keepgraph/core';
import type { DeletionReceipt } from '@keepgraph/core/ports';
import { KEEPGRAPH_VERSION, schemaVersions } from '@keepgraph/runtime/version';
import { listeningOn, v1Fetch } from './keepgraph-process.ts';
import { connectMcp, rememberThenRecall } from './mcp-client.ts';
import { readmeBlocks } from './readme-blocks.ts';

const run = promisify(execFile);

/** The first TypeScript block of a package folder's README: what a stranger reads on the registry. */
async function readmeExample(dir: string): Promise<string> {
  const [block] = await readmeBlocks('ts', `${dir}/README.md`);
  if (block === undefined) throw new Error(`${dir}/README.md has no TypeScript example`);
  return block;
}
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
    // keepgraph, @keepgraph/client and @keepgraph/langgraph, one per line.
    const tarballs = stdout.trim().split('\n');
    expect(tarballs.map((t) => t.split('/').at(-1))).toEqual([
      'keepgraph-0.1.0.tgz',
      'keepgraph-client-0.1.0.tgz',
      'keepgraph-langgraph-0.1.0.tgz',
    ]);
    mirror = await betterSqliteMirror(dir);
    // Only what a stranger's shell has, plus the three settings named here.
    env = {
      PATH: process.env['PATH'],
      HOME: process.env['HOME'],
      // The machine's own certificate authorities, where it has them (a
      // proxy that re-signs TLS): the model's download goes through it.
      ...(process.env['NODE_EXTRA_CA_CERTS'] && {
        NODE_EXTRA_CA_CERTS: process.env['NODE_EXTRA_CA_CERTS'],
      }),
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
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs], {
      cwd: app,
      env,
      encoding: 'utf8',
    });
  }, 600_000);

  afterAll(async () => {
    // npx runs keepgraph as its child: stop the whole group, and wait, or the
    // server (and its background jobs) outlives the test run.
    if (server?.pid !== undefined && server.exitCode === null) {
      const exited = new Promise<void>((r) => server!.once('exit', () => r()));
      process.kill(-server.pid, 'SIGTERM');
      await exited;
    }
    await new Promise<void>((r) => mirror?.server.close(() => r()) ?? r());
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it("answers --version with the package version and the stores' schema versions", async () => {
    const { stdout } = await keepgraph('--version');
    const pkg = JSON.parse(
      await readFile(join(app, 'node_modules/keepgraph/package.json'), 'utf8'),
    ) as { version: string };
    const { sqlite, neo4j } = schemaVersions();
    expect(stdout.trim()).toBe(`${pkg.version}\nschema: sqlite ${sqlite}, neo4j ${neo4j}`);
  });

  it('starts on the embedded default, installing the model into its cache on first run', async () => {
    server = spawn(
      'npx',
      ['--no-install', 'keepgraph', '--data', join(dir, 'data'), 'start', '--port', '0'],
      { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    );
    const started = await listeningOn(server, 'installed keepgraph');
    base = started.base;
    operatorKey = (await readFile(join(dir, 'data/operator.key'), 'utf8')).trim();
    const health = (await (await fetch(`${base}/healthz`)).json()) as Record<string, unknown>;
    expect(health).toEqual({
      ok: true,
      version: KEEPGRAPH_VERSION,
      store: 'sqlite',
      schemaVersion: schemaVersions().sqlite,
      model: 'bge-small-en-v1.5-q',
    });
    expect(started.log()).toMatch(/model bge-small-en-v1\.5-q installed from .* into .*cache/);
  }, 180_000);

  it("runs the README's HTTP flow: a user key, a write, a recall, a forget proven", async () => {
    const call = async <T>(key: string, method: string, path: string, body?: unknown) => {
      const res = await v1Fetch(base, key, method, path, body);
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

  it("typechecks a stranger's TypeScript against the installed libraries' declarations", async () => {
    // Strict, resolving as Node does, and checking the packages' declaration
    // files themselves (skipLibCheck off): a broken import in what we ship
    // fails here, and `any` where an answer's type should be fails the checks.
    await writeFile(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          skipLibCheck: false,
          typeRoots: [join(root, 'node_modules/@types')],
          types: ['node'],
        },
        files: ['client-example.mts', 'langgraph-example.mts', 'types.mts'],
      }),
    );
    await writeFile(join(app, 'client-example.mts'), await readmeExample('packages/client'));
    await writeFile(join(app, 'langgraph-example.mts'), await readmeExample('packages/langgraph'));
    await writeFile(
      join(app, 'types.mts'),
      [
        "import { KeepGraphClient, KeepGraphError, type Out } from '@keepgraph/client';",
        "import type { BaseStore } from '@langchain/langgraph-checkpoint';",
        "import { KeepGraphStore } from '@keepgraph/langgraph';",
        'type IsAny<T> = 0 extends 1 & T ? true : false;',
        "const kg = new KeepGraphClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'kgk_x' });",
        'type Recalled = Awaited<ReturnType<typeof kg.recall>>;',
        "type Text = Recalled['results'][number]['memory']['text'];",
        "export const notAny: [IsAny<Recalled>, IsAny<Text>, IsAny<Out<'forget'>>, IsAny<KeepGraphError['code']>] =",
        '  [false, false, false, false];',
        "export const text: Text = 'a string';",
        '// @ts-expect-error: not a kind of memory KeepGraph knows',
        "void kg.remember('alex', { kind: 'nonsense', text: 'x' });",
        "export const store: BaseStore = new KeepGraphStore({ baseUrl: 'http://127.0.0.1:1', apiKey: 'kgk_x' });",
        '',
      ].join('\n'),
    );
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const checked = await run(process.execPath, [tsc, '-p', app], {
      cwd: app,
      encoding: 'utf8',
    }).catch((e: { stdout: string }) => ({ stdout: e.stdout, failed: true }));
    expect(checked.stdout).toBe('');
  }, 120_000);

  it("runs the client's and the LangGraph store's README examples as plain JavaScript", async () => {
    const { key } = (await (
      await v1Fetch(base, operatorKey, 'POST', '/keys', {
        name: 'libraries',
        role: 'user',
        owners: ['alex'],
      })
    ).json()) as { key: string };
    const runExample = async (pkg: string) => {
      // The README's TypeScript, its types stripped, run by node from the install folder.
      const { code } = await transform(await readmeExample(pkg), { loader: 'ts', format: 'esm' });
      const file = join(app, `${pkg.split('/').at(-1)}-example.mjs`);
      await writeFile(file, code);
      const { stdout } = await run(process.execPath, [file], {
        cwd: app,
        env: { ...env, KEEPGRAPH_URL: base, KEEPGRAPH_KEY: key },
        encoding: 'utf8',
      });
      return stdout;
    };
    expect(await runExample('packages/client')).toBe(
      'Alex prefers aisle seats on long flights user s1\n',
    );
    // The client's example forgot its memory: the store's recall finds the
    // store's own value, with the authority and origin KeepGraph keeps.
    expect(await runExample('packages/langgraph')).toMatch(
      /^Alex prefers aisle seats on long flights user \{\s+sessionId: 'lg-1'/,
    );
  }, 120_000);

  it("starts the README's npx MCP configuration, as written, on a data folder of its own", async () => {
    const npxConfig = (await readmeBlocks('json'))
      .map(
        (b) =>
          JSON.parse(b) as {
            mcpServers?: { keepgraph?: { command?: string; args?: string[] } };
          },
      )
      .map((c) => c.mcpServers?.keepgraph)
      .find((k) => k?.command === 'npx');
    expect(npxConfig?.args).toContain('-y');
    // Run from the install folder, npx finds the installed keepgraph and fetches nothing.
    const client = await connectMcp(
      new StdioClientTransport({
        command: npxConfig!.command!,
        args: npxConfig!.args!.map((a) => a.replace('/path/to/data', join(dir, 'mcp-data'))),
        cwd: app,
        env: env as Record<string, string>,
        stderr: 'pipe',
      }) as Transport,
    );
    try {
      expect(
        await rememberThenRecall(client, 'Alex flies from Lisbon', 'Where does Alex fly from?'),
      ).toContain('Alex flies from Lisbon');
    } finally {
      await client.close();
    }
  }, 120_000);
});
