// Driver errors leave the store as KeepGraph codes whose message and details
// name no SQLite internals (they reach HTTP callers); the driver's error is
// kept on `cause` for the server log.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { isKeepGraphError } from '@keepgraph/core';
import { toStoreError } from '../src/sqlite-errors.ts';

describe('SQLite errors at the store boundary', () => {
  it('a constraint, a busy lock, a full disk and a range error map to codes without SQLite internals', () => {
    const cases: [unknown, string][] = [
      [
        new Database.SqliteError(
          'CHECK constraint failed: length(trim(owner_id)) > 0',
          'SQLITE_CONSTRAINT_CHECK',
        ),
        'invalid_input',
      ],
      [
        new Database.SqliteError(
          'UNIQUE constraint failed: memories.id',
          'SQLITE_CONSTRAINT_UNIQUE',
        ),
        'conflict',
      ],
      [new Database.SqliteError('database is locked', 'SQLITE_BUSY'), 'store_unavailable'],
      [new Database.SqliteError('database or disk is full', 'SQLITE_FULL'), 'store_full'],
      [new RangeError('Too many parameter values were provided'), 'invalid_input'],
    ];
    for (const [raw, code] of cases) {
      const mapped = toStoreError(raw);
      expect(isKeepGraphError(mapped) && mapped.code).toBe(code);
      const shown = JSON.stringify({
        message: (mapped as Error).message,
        details: (mapped as { details?: unknown }).details,
      });
      expect(shown).not.toMatch(/SQLITE|constraint failed|owner_id|parameter/i);
      expect((mapped as Error).cause).toBe(raw);
    }
  });
});
