// The data directory is private (DESIGN invariant 14): the directory 0700
// and its files 0600, whatever the process umask, since it holds every
// memory, the audit secret and the first operator key. Each file the
// runtime writes there is created with an explicit mode (umask can only take
// bits away from it); this module makes the directory and tightens what an
// earlier release, an operator or a copy left wider.
//
// A start over a wider directory tightens it and says so, rather than
// refusing: every data dir written before this rule is 0755 with 0644
// files, and refusing would stop each of those installations at its next
// start for something the process can put right itself. It refuses only
// when it cannot (a directory or file of another user), naming the path.
import { chmod, lstat, mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { KeepGraphError } from '@keepgraph/core';

/** Mode of the data directory. */
export const DATA_DIR_MODE = 0o700;

/** Mode of each file in it. */
export const DATA_FILE_MODE = 0o600;

/** Group and other permission bits: what "private" takes away. */
const SHARED_BITS = 0o077;

/** One path whose mode was tightened, and its modes before and after. */
export interface TightenedPath {
  path: string;
  from: number;
  to: number;
}

function octal(mode: number): string {
  return (mode & 0o777).toString(8).padStart(4, '0');
}

/** One line saying what was tightened, for the start's log. */
export function describeTightened(dir: string, tightened: readonly TightenedPath[]): string {
  const shown = tightened
    .slice(0, 8)
    .map(
      (t) =>
        `${t.path === dir ? '.' : t.path.slice(dir.length + 1)} ${octal(t.from)} -> ${octal(t.to)}`,
    );
  const more =
    tightened.length > shown.length ? `, and ${tightened.length - shown.length} more` : '';
  return `the data directory ${dir} was readable by other users: made it private (${shown.join(', ')}${more})`;
}

async function tighten(path: string, mode: number, out: TightenedPath[]): Promise<void> {
  if ((mode & SHARED_BITS) === 0) return;
  // The owner's bits stay (an executable stays executable to its owner):
  // privacy is what is taken away, not what the owner set for itself.
  const to = mode & 0o777 & ~SHARED_BITS;
  try {
    await chmod(path, to);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    const owner = (await lstat(path).catch(() => null))?.uid;
    throw new KeepGraphError(
      'store_unavailable',
      `${path} is mode ${octal(mode)}, readable by other users, and this process cannot make it private (${code}` +
        `${owner !== undefined ? `; owned by uid ${owner}, this process runs as uid ${process.getuid?.() ?? '?'}` : ''}): ` +
        `run KeepGraph as its owner, or chmod it to ${octal(to)} yourself`,
      { reason: 'data_dir_not_private' },
    );
  }
  out.push({ path, from: mode & 0o777, to });
}

/**
 * Make `dir` private: created 0700 when missing (and `create` is set);
 * when it exists, it and each entry in it lose their group and other bits.
 * Entries below the top level are left as they are: a 0700 directory
 * already keeps other users out of everything under it. Symbolic links are
 * not followed (one could name a file outside the directory).
 *
 * @returns what was tightened (empty for a new or already private
 *   directory); null when `dir` does not exist and `create` is off.
 * @throws KeepGraphError `store_unavailable` (details.reason
 *   `data_dir_not_private`) when a mode cannot be changed.
 */
export async function makeDataDirPrivate(
  dir: string,
  opts: { create: boolean },
): Promise<TightenedPath[] | null> {
  // stat, not lstat: a data dir may be a link to where the space is.
  const st = await stat(dir).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw e;
  });
  if (!st) {
    if (!opts.create) return null;
    await mkdir(dir, { recursive: true, mode: DATA_DIR_MODE });
    // mkdir's mode passes through the umask, which may take the owner's bits too.
    await chmod(dir, DATA_DIR_MODE);
    return [];
  }
  const out: TightenedPath[] = [];
  await tighten(dir, st.mode, out);
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    const entry = await lstat(path).catch(() => null);
    if (entry && (entry.isFile() || entry.isDirectory())) await tighten(path, entry.mode, out);
  }
  return out;
}

/** Where a notice goes when the caller names no other place: a line on stderr. */
export function stderrNotice(message: string): void {
  console.warn(`keepgraph: ${message}`);
}

/**
 * {@link makeDataDirPrivate}, then tell `notice` (stderr by default) what
 * was tightened, if anything: the operator should know a mode changed.
 */
export async function prepareDataDir(
  dir: string,
  opts: { create: boolean; notice?: ((message: string) => void) | undefined },
): Promise<void> {
  const tightened = await makeDataDirPrivate(dir, { create: opts.create });
  if (tightened && tightened.length > 0)
    (opts.notice ?? stderrNotice)(describeTightened(dir, tightened));
}
