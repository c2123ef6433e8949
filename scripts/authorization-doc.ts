// Writes docs/authorization.md from the authorization matrix (see
// packages/server/src/authorization-doc.ts); a test checks the file.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { authorizationMarkdown } from '../packages/server/src/authorization-doc.ts';

const out = resolve(import.meta.dirname, '../docs/authorization.md');
writeFileSync(out, authorizationMarkdown());
console.log(`wrote ${out}`);
