// Write the SDKs' bindings of the exposed use-cases (exposed-bindings.ts).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PYTHON_FILE, TS_FILE, renderPython, renderTs } from './exposed-bindings.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
writeFileSync(join(root, TS_FILE), await renderTs(root));
writeFileSync(join(root, PYTHON_FILE), renderPython());
console.log(`wrote ${TS_FILE} and ${PYTHON_FILE}`);
