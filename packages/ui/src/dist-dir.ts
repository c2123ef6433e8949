// Where the built app lives, for the server that serves it at /ui.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The folder `build.ts` writes: index.html, app.js, app.css. */
export const UI_DIST_DIR = fileURLToPath(new URL('../dist/', import.meta.url));

/** Whether the app has been built (the install step does it; `pnpm --filter @keepgraph/ui build` again). */
export function uiBuilt(): boolean {
  return existsSync(fileURLToPath(new URL('../dist/index.html', import.meta.url)));
}
