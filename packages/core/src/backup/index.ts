// @keepgraph/core/backup: backup formats (SQLite file, JSON lines), reading
// a store as a backup source, and restoring an owner's data from one.
export * from './backup-format.ts';
export * from './backup-jsonl.ts';
export * from './store-source.ts';
export * from './restore.ts';
