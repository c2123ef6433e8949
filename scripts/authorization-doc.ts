// Writes docs/authorization.md from the use-case registry (see
// packages/core/src/use-cases/authorization-table.ts); a test checks the file.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { authorizationMarkdown } from '../packages/core/src/index.ts';

const out = resolve(import.meta.dirname, '../docs/authorization.md');
writeFileSync(out, authorizationMarkdown());
console.log(`wrote ${out}`);
