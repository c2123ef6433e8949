// A backup as a JSONL file: the lines for a source (backupLines), and a
// file's lines read back as a source (readBackupLines) after one full pass
// that checks every line, the order of the sections, the counts, the
// SHA-256 of the end line and the audit chain, so that a file which would
// fail half-way is refused before a restore writes anything. Core reads and
// writes no files: the caller hands over the lines.
import { GENESIS_HASH, sealAuditEvent, type AuditEvent } from '../domain/audit.ts';
import { KeepGraphError } from '../domain/errors.ts';
import type { ApiKeyRecord } from '../ports/memory-store.ts';
import {
  BackupDigest,
  backupLine,
  parseBackupLine,
  type BackedUpMemory,
  type BackupEnd,
  type BackupHeader,
  type BackupLine,
  type BackupSource,
} from './backup-format.ts';

/** What was counted while the lines were made or read. */
export type BackupCounts = Omit<BackupEnd, 'sha256'>;

/**
 * The lines of a backup file for `source`, each without its newline: the
 * header, the memories, the API keys, the audit log and the end line.
 * `counts` (when given) is filled in as the lines go, for the caller's report.
 */
export async function* backupLines(
  source: BackupSource,
  counts: BackupCounts = { memories: 0, owners: 0, apiKeys: 0, auditEvents: 0 },
): AsyncGenerator<string> {
  const digest = new BackupDigest();
  const emit = (line: string): string => {
    digest.add(line);
    return line;
  };
  yield emit(backupLine.header(source.header));
  let owner: string | null = null;
  for await (const m of source.memories()) {
    if (m.memory.ownerId !== owner) {
      owner = m.memory.ownerId;
      counts.owners++;
    }
    counts.memories++;
    yield emit(backupLine.memory(m));
  }
  for await (const k of source.apiKeys()) {
    counts.apiKeys++;
    yield emit(backupLine.apiKey(k));
  }
  for await (const e of source.auditEvents()) {
    counts.auditEvents++;
    yield emit(backupLine.audit(e));
  }
  yield backupLine.end({ ...counts, sha256: digest.hex() });
}

/** Sections in the order a file holds them. */
const SECTION = { header: 0, memory: 1, apiKey: 2, audit: 3, end: 4 } as const;

function bad(message: string, details: Record<string, unknown> = {}): KeepGraphError {
  return new KeepGraphError('invalid_input', message, details);
}

function looksLikeHeader(text: string): boolean {
  try {
    return (JSON.parse(text) as { type?: unknown } | null)?.type === 'header';
  } catch {
    return false;
  }
}

/** The numbered lines of a file, blank ones left out (a file may end with a newline). */
async function* numbered(lines: AsyncIterable<string>): AsyncGenerator<[number, string]> {
  let n = 0;
  for await (const text of lines) {
    n++;
    if (text.trim() !== '') yield [n, text];
  }
}

/**
 * Check a whole backup file, then hand it out as a source whose passes read
 * it again (`lines` is called once per pass and must give the same lines).
 * Throws `invalid_input` naming the problem (and the line) for: no header,
 * another format or version, a malformed record, sections out of order, an
 * owner's memories split up, a memory id twice, an audit chain that does not
 * verify, a missing end line (a truncated file), counts or a SHA-256 that
 * do not match.
 */
export async function readBackupLines(
  lines: () => AsyncIterable<string>,
): Promise<BackupSource & { end: BackupEnd }> {
  const digest = new BackupDigest();
  let header: BackupHeader | null = null;
  let end: BackupEnd | null = null;
  let section: number = SECTION.header;
  const counts: BackupCounts = { memories: 0, owners: 0, apiKeys: 0, auditEvents: 0 };
  const ownersSeen = new Set<string>();
  const ids = new Set<string>();
  let owner: string | null = null;
  let prevHash = GENESIS_HASH;
  for await (const [n, text] of numbered(lines())) {
    if (end !== null) throw bad(`backup line ${n}: a line after the end line`, { line: n });
    if (header === null) {
      let first: BackupLine;
      try {
        first = parseBackupLine(text, n, 1);
      } catch (e) {
        // A header of another format or version says so itself.
        if (looksLikeHeader(text)) throw e;
        throw bad(
          `not a KeepGraph backup: its first line is not a keepgraph-backup header (${e instanceof Error ? e.message : String(e)})`,
          { line: n },
        );
      }
      if (first.type !== 'header')
        throw bad('not a KeepGraph backup: its first line is not a header', { line: n });
      header = first.header;
      digest.add(text);
      continue;
    }
    const line = parseBackupLine(text, n, header.dimensions);
    const at = SECTION[line.type];
    if (at < section || line.type === 'header')
      throw bad(
        `backup line ${n}: a ${line.type} record after the ${line.type === 'header' ? 'header' : 'section that follows it'}`,
        {
          line: n,
        },
      );
    section = at;
    switch (line.type) {
      case 'memory': {
        const m = line.memory.memory;
        if (m.ownerId !== owner) {
          if (ownersSeen.has(m.ownerId))
            throw bad(`backup line ${n}: owner ${m.ownerId}'s memories are not together`, {
              line: n,
            });
          ownersSeen.add(m.ownerId);
          owner = m.ownerId;
          counts.owners++;
        }
        if (ids.has(m.id)) throw bad(`backup line ${n}: memory ${m.id} twice`, { line: n });
        ids.add(m.id);
        counts.memories++;
        break;
      }
      case 'apiKey':
        counts.apiKeys++;
        break;
      case 'audit': {
        const e = line.event;
        const { seq, prevHash: prev, hash, ...input } = e;
        if (seq !== counts.auditEvents + 1 || prev !== prevHash)
          throw bad(`backup line ${n}: audit event ${seq} does not follow the one before it`, {
            line: n,
          });
        if (sealAuditEvent(input, seq, prev).hash !== hash)
          throw bad(`backup line ${n}: audit event ${seq} does not match its hash`, { line: n });
        if (header.snapshot?.seq === seq && header.snapshot.hash !== hash)
          throw bad(`backup line ${n}: audit event ${seq} is not the header's snapshot`, {
            line: n,
          });
        prevHash = hash;
        counts.auditEvents++;
        break;
      }
      case 'end':
        end = line.end;
        continue;
    }
    digest.add(text);
  }
  if (header === null) throw bad('the backup file is empty');
  if (end === null)
    throw bad('the backup has no end line: the file is truncated or was not finished');
  const sha256 = digest.hex();
  if (end.sha256 !== sha256)
    throw bad('the backup does not match the SHA-256 of its end line: the file was changed', {
      expected: end.sha256,
      found: sha256,
    });
  for (const k of ['memories', 'owners', 'apiKeys', 'auditEvents'] as const)
    if (end[k] !== counts[k])
      throw bad(`the backup's end line counts ${end[k]} ${k}, the file holds ${counts[k]}`);
  if (header.snapshot !== null && header.snapshot.seq > counts.auditEvents)
    throw bad(`the backup's snapshot names audit event ${header.snapshot.seq}, which it lacks`);
  const h = header;
  async function* records<T>(pick: (l: BackupLine) => T | undefined): AsyncGenerator<T> {
    for await (const [n, text] of numbered(lines())) {
      const v = pick(parseBackupLine(text, n, h.dimensions));
      if (v !== undefined) yield v;
    }
  }
  return {
    header: h,
    end,
    memories: () => records<BackedUpMemory>((l) => (l.type === 'memory' ? l.memory : undefined)),
    apiKeys: () => records<ApiKeyRecord>((l) => (l.type === 'apiKey' ? l.key : undefined)),
    auditEvents: () => records<AuditEvent>((l) => (l.type === 'audit' ? l.event : undefined)),
  };
}
