// Debian's Chromium, headless, driven by playwright-core: the browser every
// browser test uses (never a downloaded one). The flags keep it off the
// network and away from the GPU the test machines do not have.
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      // sigma.js draws with WebGL: without a GPU, Chromium's software renderer.
      '--enable-unsafe-swiftshader',
    ],
  });
}
