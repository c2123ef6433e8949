// docs/authorization.md is generated from the registry: it must say what the
// code does. Regenerate it with `pnpm docs:authorization`.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROLES, USE_CASES, authorizationMarkdown } from '@keepgraph/core';

describe('docs/authorization.md', () => {
  it('is the registry rendered: one row per use-case, a column per role', () => {
    const doc = readFileSync(
      resolve(import.meta.dirname, '../../../docs/authorization.md'),
      'utf8',
    );
    expect(doc).toBe(authorizationMarkdown());
    const rows = doc.split('\n').filter((l) => l.startsWith('| `'));
    expect(rows).toHaveLength(Object.keys(USE_CASES).length);
    // forgetOwner: operators and users only.
    const forgetOwner = rows
      .find((r) => r.startsWith('| `forgetOwner`'))!
      .split('|')
      .slice(3, -1)
      .map((c) => c.trim());
    expect(forgetOwner).toEqual(ROLES.map((r) => (r === 'operator' || r === 'user' ? 'yes' : '')));
  });
});
