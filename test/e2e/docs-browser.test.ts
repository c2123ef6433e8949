// The API docs page (/docs, swagger-ui) in a real browser (Debian's
// Chromium, headless) under its Content-Security-Policy: the page still
// renders the KeepGraph document and its operations with no CSP violation,
// and another origin cannot frame it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createHashingEmbedder } from '@keepgraph/embedder';
import { openEmbeddedRuntime, type EmbeddedRuntime } from '@keepgraph/runtime';
import { buildApp } from '@keepgraph/server';
import { launchChromium } from './chromium.ts';

let dir: string;
let runtime: EmbeddedRuntime;
let app: ReturnType<typeof buildApp>;
let base: string;
let browser: Browser;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keepgraph-docs-'));
  runtime = await openEmbeddedRuntime({
    dataDir: dir,
    embedder: createHashingEmbedder(16),
    sweepIntervalMs: null,
  });
  app = buildApp({ engine: runtime.engine });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await runtime?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('renders the docs under their CSP with no violation, and refuses to be framed', async () => {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  const answer = await page.goto(`${base}/docs/`);
  expect(answer?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
  await expect
    .poll(() => page.locator('.swagger-ui .info .title').textContent(), { timeout: 15_000 })
    .toContain('KeepGraph');
  expect(await page.locator('.opblock').count()).toBeGreaterThan(10);
  // Open one operation: its schemas render too.
  await page.locator('.opblock-summary').first().click();
  await expect.poll(() => page.locator('.opblock-body').count()).toBeGreaterThan(0);
  expect(problems).toEqual([]);

  // Framed by a page of another origin (about:blank here), it does not load.
  const framer = await browser.newPage();
  await framer.setContent(`<iframe src="${base}/docs/" width="800" height="600"></iframe>`);
  await framer.waitForTimeout(1500);
  const frame = framer.frames().find((f) => f !== framer.mainFrame());
  expect(
    await frame
      ?.locator('.swagger-ui')
      .count()
      .catch(() => 0),
  ).toBe(0);
  await framer.close();
  await page.close();
});
