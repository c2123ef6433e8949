// docs/authorization.md is generated from the authorization matrix: it must
// say what the code does. Regenerate it with `pnpm docs:authorization`.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROLES } from '@keepgraph/core';
import { USE_CASE_ROUTES } from '../src/app.ts';
import { authorizationMarkdown } from '../src/authorization-doc.ts';

describe('docs/authorization.md', () => {
  it('is the matrix rendered: a row per route, a column per role', () => {
    const doc = readFileSync(
      resolve(import.meta.dirname, '../../../docs/authorization.md'),
      'utf8',
    );
    expect(doc).toBe(authorizationMarkdown());
    const rows = doc.split('\n').filter((l) => l.startsWith('| `') && l.includes(' /v1/'));
    expect(rows).toHaveLength(USE_CASE_ROUTES.length);
    const cells = (prefix: string) =>
      rows
        .find((r) => r.startsWith(prefix))!
        .split('|')
        .slice(3, -1)
        .map((c) => c.trim());
    // Forgetting a whole owner: operators anywhere, users on their own owners.
    expect(cells('| `DELETE /v1/owners/:ownerId`')).toEqual(
      ROLES.map((r) =>
        r === 'operator'
          ? 'ok / · / ok'
          : r === 'user'
            ? 'ok / scope / scope'
            : 'role / role / role',
      ),
    );
    // Keys: operators only; the route names no owner.
    expect(cells('| `POST /v1/keys`')).toEqual(
      ROLES.map((r) => (r === 'operator' ? 'ok / · / ·' : 'role / · / ·')),
    );
  });
});
