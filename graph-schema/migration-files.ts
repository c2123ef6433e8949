// Reading numbered migration files, shared by every store: `0001-name.ext`
// is version 1, name 'name'. Files are ordered by version; two files of one
// version are refused, and the checksum (over the text with line endings
// normalised, so a CRLF checkout is not a "change") is what each store's
// ledger compares to refuse an edited, already applied migration.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** One migration file as read from disk. */
export interface MigrationFileText {
  version: number;
  name: string;
  file: string;
  text: string;
  checksum: string;
}

/** Thrown for a directory whose files cannot form one ordered history. */
export class MigrationFilesError extends Error {
  readonly reason = 'migration_duplicate_version';
}

export function migrationChecksum(text: string): string {
  return createHash('sha256').update(text.replace(/\r\n/g, '\n')).digest('hex');
}

const migrationFileName = (extension: 'sql' | 'cypher') =>
  new RegExp(`^(\\d{4})-([a-z0-9][a-z0-9-]*)\\.${extension}$`);

/** The highest version among the `NNNN-name.<extension>` files of `dir` (0: none), read from their names alone. */
export function highestMigrationVersion(dir: string, extension: 'sql' | 'cypher'): number {
  const pattern = migrationFileName(extension);
  return Math.max(0, ...readdirSync(dir).map((f) => Number(pattern.exec(f)?.[1] ?? 0)));
}

/** The `NNNN-name.<extension>` files of `dir`, by version. */
export function readMigrationFiles(dir: string, extension: 'sql' | 'cypher'): MigrationFileText[] {
  const pattern = migrationFileName(extension);
  const files: MigrationFileText[] = [];
  for (const entry of readdirSync(dir)) {
    const m = pattern.exec(entry);
    if (!m) continue;
    const text = readFileSync(join(dir, entry), 'utf8');
    files.push({
      version: Number(m[1]),
      name: m[2] ?? entry,
      file: entry,
      text,
      checksum: migrationChecksum(text),
    });
  }
  files.sort((a, b) => a.version - b.version);
  for (let i = 1; i < files.length; i++) {
    if (files[i]!.version === files[i - 1]!.version)
      throw new MigrationFilesError(`two migrations share version ${files[i]!.version}`);
  }
  return files;
}
