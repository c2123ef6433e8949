// pnpm pack:packages — the npm packages a stranger installs, made from this
// workspace into .tmp/packs/ (`--out DIR` for another folder), one tarball
// path printed per line:
// - `keepgraph`, the command: server, CLI, MCP, workers (pack/keepgraph.ts);
// - `@keepgraph/client`, the HTTP API for TypeScript, and
//   `@keepgraph/langgraph`, a LangGraph.js store over it (pack/library.ts).
// `pnpm pack:keepgraph` (`--only keepgraph`) makes the command's alone, as the
// image does. The workspace's own tests run against the sources;
// test/e2e/installed.test.ts installs these tarballs with plain npm into an
// empty folder and runs them.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { emitDeclarations } from './pack/declarations.ts';
import { packKeepgraph } from './pack/keepgraph.ts';
import { packLibrary } from './pack/library.ts';
import { resolvedVersions, root, workspaceManifests } from './pack/workspace.ts';

const LIBRARIES = ['packages/client', 'packages/langgraph'];

const { values } = parseArgs({
  options: { out: { type: 'string' }, only: { type: 'string' } },
});
const out = resolve(values.out ?? join(root, '.tmp/packs'));
if (values.only !== undefined && values.only !== 'keepgraph')
  throw new Error(`--only takes keepgraph (the libraries are packed together), not ${values.only}`);
mkdirSync(out, { recursive: true });
const manifests = workspaceManifests();
const versions = resolvedVersions(manifests);

console.log(await packKeepgraph({ out, manifests, versions }));
if (values.only === undefined) {
  // The libraries' declarations reach core's types and graph-schema's.
  const emitted = join(out, 'declarations');
  emitDeclarations(
    [...LIBRARIES.map((d) => `${d}/src`), 'packages/core/src', 'graph-schema/*.ts'],
    emitted,
  );
  for (const dir of LIBRARIES)
    console.log(await packLibrary({ dir, out, manifests, versions, emitted }));
}
