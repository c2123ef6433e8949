// A use-case whose registry row declares its exposure (core's exposure.ts)
// appears on every interface with nothing written for it there: on HTTP
// with its OpenAPI entry, as an MCP tool, as a CLI command, and in both
// SDKs through bindings generated from the registry (checked fresh here).
// Every exposed row is checked for its presence; ownerStats, the worked
// example of docs/adding-a-use-case.md, is called through each interface.
// (The Python SDK's call is in clients/python/tests/test_exposed.py.)
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { KeepGraphClient } from '@keepgraph/client';
import { OwnerStatsResult, USE_CASES, type ExposedUseCase } from '@keepgraph/core';
import {
  PYTHON_FILE,
  TS_FILE,
  renderPython,
  renderTs,
} from '../../packages/client/scripts/exposed-bindings.ts';
import { createKey, scratchKeepGraph, type KeepGraphProcess } from './keepgraph-process.ts';
import { connectRemoteMcp } from './mcp-client.ts';
import { keepgraphArgv, keepgraphEnv } from '../keepgraph-cli.ts';

const root = resolve(import.meta.dirname, '../..');
const exposedRows = (Object.entries(USE_CASES) as [string, Partial<ExposedUseCase>][]).filter(
  (r): r is [string, ExposedUseCase] => r[1].expose !== undefined,
);
/** `/owners/:ownerId/stats` as OpenAPI spells it: `/v1/owners/{ownerId}/stats`. */
const openApiPath = (path: string) => `/v1${path.replace(/:(\w+)/g, '{$1}')}`;

describe('use-cases exposed from the registry', () => {
  const server = scratchKeepGraph('kg-exposed-', {
    KEEPGRAPH_STORE: 'sqlite',
    KEEPGRAPH_RATE_LIMIT: '0',
  });
  let kg: KeepGraphProcess;
  let key: string;
  let mcp: Client;
  const owner = `owner-${randomUUID()}`;

  beforeAll(async () => {
    kg = await server.start();
    key = createKey(server.dataDir, { KEEPGRAPH_STORE: 'sqlite' }, [
      '--role',
      'user',
      '--owners',
      owner,
      '--name',
      'exposed',
    ]).key;
    const client = new KeepGraphClient({ baseUrl: kg.base, apiKey: key });
    await client.remember(owner, {
      kind: 'fact',
      text: 'Alex keeps bees on the allotment',
      origin: { sessionId: 'x1' },
    });
    await client.remember(owner, {
      kind: 'preference',
      text: 'Alex prefers honey from the spring harvest',
      origin: { sessionId: 'x1' },
    });
    mcp = await connectRemoteMcp(kg.base, owner, key);
  }, 180_000);

  afterAll(async () => {
    await mcp?.close();
    await server.end('stop');
  });

  it('has the SDK bindings generated from the registry as committed (pnpm generate:bindings)', async () => {
    expect(exposedRows.length).toBeGreaterThan(0);
    expect(await readFile(join(root, TS_FILE), 'utf8')).toBe(await renderTs(root));
    expect(await readFile(join(root, PYTHON_FILE), 'utf8')).toBe(renderPython());
  });

  it('documents every exposed use-case in the OpenAPI document, lists its tool and its command', async () => {
    const doc = (await (await fetch(`${kg.base}/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<string, { summary: string; responses: Record<string, unknown> }>
      >;
    };
    const { tools } = await mcp.listTools();
    const help = execFileSync(process.execPath, keepgraphArgv('--help'), {
      cwd: root,
      env: keepgraphEnv(),
      encoding: 'utf8',
    });
    for (const [name, u] of exposedRows) {
      const [method, path] = u.expose.http.split(' ') as [string, string];
      const op = doc.paths[openApiPath(path)]?.[method.toLowerCase()];
      expect(op?.summary, name).toBe(u.expose.summary);
      expect(Object.keys(op!.responses), name).toContain(String(u.expose.status ?? 200));
      if (u.expose.mcp) {
        const tool = tools.find((t) => t.name === u.expose.mcp!.name);
        expect(tool?.description, name).toBe(u.expose.summary);
        expect(tool?.annotations?.readOnlyHint, name).toBe(u.expose.mcp.kind === 'read');
      }
      if (u.expose.cli) expect(help, name).toContain(u.expose.cli.command);
    }
  });

  it('answers ownerStats on HTTP, through the TS client, as an MCP tool and on the CLI', async () => {
    const expected = {
      ownerId: owner,
      memories: 2,
      byKind: { fact: 1, preference: 1 },
      byAuthority: { user: 2 },
    };
    const r = await fetch(`${kg.base}/v1/owners/${owner}/stats`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(r.status).toBe(200);
    const overHttp = OwnerStatsResult.parse(await r.json());
    expect(overHttp).toMatchObject(expected);
    expect(overHttp.medianAgeMs).toBeGreaterThanOrEqual(0);

    const client = new KeepGraphClient({ baseUrl: kg.base, apiKey: key });
    expect(await client.invoke('ownerStats', [owner])).toMatchObject(expected);
    // Another owner is refused as on every route (the key holds one owner).
    await expect(client.invoke('ownerStats', ['someone-else'])).rejects.toMatchObject({
      code: 'owner_out_of_scope',
    });

    const viaTool = (await mcp.callTool({ name: 'owner_stats', arguments: {} })) as {
      isError?: boolean;
      structuredContent?: unknown;
      content: { text?: string }[];
    };
    expect(viaTool.isError ?? false).toBe(false);
    expect(viaTool.structuredContent).toMatchObject(expected);

    const out = execFileSync(
      process.execPath,
      keepgraphArgv('stats', '--owner', owner, '--data', server.dataDir),
      { cwd: root, env: keepgraphEnv({ KEEPGRAPH_STORE: 'sqlite' }), encoding: 'utf8' },
    );
    expect(JSON.parse(out)).toMatchObject(expected);
  });
});
