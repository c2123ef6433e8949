// The TypeScript client in a real browser (Debian's Chromium, headless):
// bundled for the browser as it is, loaded from a page on another origin,
// against `keepgraph start` with that origin allowed by CORS. It remembers,
// recalls with origin and authority, and gets a refused secret as a
// KeepGraphError with our code.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { launchChromium } from './chromium.ts';
import type * as SdkExports from '@keepgraph/client';
import { startKeepGraph, userKeyFor, type KeepGraphProcess } from './keepgraph-process.ts';

type SdkModule = typeof SdkExports;

const root = resolve(import.meta.dirname, '../..');

describe('the TypeScript client in a browser', () => {
  let dir: string;
  let kg: KeepGraphProcess;
  let page: Server;
  let pageBase = '';
  let browser: Browser;
  let key = '';
  const owner = `browser-${randomUUID()}`;

  beforeAll(async () => {
    const bundle = await build({
      entryPoints: [join(root, 'packages/client/src/index.ts')],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      write: false,
    });
    const js = bundle.outputFiles[0]!.text;
    // Node's own modules in the bundle would mean it cannot run in a browser.
    expect(js).not.toMatch(/from ["']node:/);
    page = createServer((req, res) => {
      if (req.url === '/client.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' });
        res.end(js);
      } else {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(
          '<!doctype html><title>kg</title><script type="module">import * as sdk from "/client.js"; window.sdk = sdk;</script>',
        );
      }
    });
    await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
    pageBase = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
    dir = await mkdtemp(join(tmpdir(), 'keepgraph-browser-'));
    kg = await startKeepGraph(join(dir, 'data'), {
      KEEPGRAPH_RATE_LIMIT: '0',
      KEEPGRAPH_CORS_ORIGINS: pageBase,
    });
    key = await userKeyFor(kg, owner, 'browser');
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await kg?.stop();
    await new Promise<void>((r) => (page ? page.close(() => r()) : r()));
    await rm(dir, { recursive: true, force: true });
  });

  it('remembers, recalls with provenance and gets typed errors from another origin', async () => {
    const tab = await browser.newPage();
    await tab.goto(pageBase);
    await tab.waitForFunction(() => 'sdk' in window);
    const out = await tab.evaluate(
      async ({ base, key, owner, secret }) => {
        const { KeepGraphClient, KeepGraphError } = (window as unknown as { sdk: SdkModule }).sdk;
        const kg = new KeepGraphClient({ baseUrl: base, apiKey: key });
        const { memory } = await kg.remember(owner, {
          kind: 'preference',
          text: 'Alex prefers aisle seats on long flights',
          origin: { sessionId: 'browser-1' },
        });
        const { results } = await kg.recall(owner, 'Which seat should I book?');
        let refused = '';
        try {
          await kg.remember(owner, { kind: 'fact', text: secret, origin: { sessionId: 'b' } });
        } catch (e) {
          refused = e instanceof KeepGraphError ? `${e.status} ${e.code}` : String(e);
        }
        return {
          id: memory.id,
          top: results[0]?.memory.id,
          authority: results[0]?.authority,
          session: results[0]?.origin.sessionId,
          refused,
        };
      },
      {
        base: kg.base,
        key,
        owner,
        secret: `the token is ghp_${randomUUID().replaceAll('-', '')}Wxyz`,
      },
    );
    expect(out).toMatchObject({
      authority: 'user',
      session: 'browser-1',
      refused: '422 refused_secret',
    });
    expect(out.top).toBe(out.id);
  }, 60_000);
});
