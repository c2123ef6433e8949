// The memory filters as flags, shared by `list` and `recall`/`why` (both
// take core's MemoryFilter): one spelling of each flag, one translation.
import type { Command } from 'commander';
import { AUTHORITIES, MEMORY_KINDS, type MemoryFilter } from '@keepgraph/core/registry';

export interface FilterFlags {
  kind?: string[];
  authority?: string[];
  tag?: string;
  fromSession?: string;
  tool?: string;
  sourceUrl?: string;
  createdAfter?: string;
  createdBefore?: string;
  expiresBefore?: string;
  conflicts?: boolean;
  derived?: boolean;
}

/**
 * Add the filter flags. `sessionFlag` names the origin-session filter:
 * `--session` for list, `--from-session` where `--session` already means
 * the reader's session (recall).
 */
export function addFilterFlags(cmd: Command, sessionFlag: '--session' | '--from-session'): Command {
  return cmd
    .option('--kind <kind...>', `only these kinds: ${MEMORY_KINDS.join(', ')}`)
    .option('--authority <a...>', `only these authorities: ${AUTHORITIES.join(', ')}`)
    .option('--tag <tag>', 'only memories with this tag')
    .option(`${sessionFlag} <id>`, 'only memories from this session', undefined)
    .option('--tool <name>', 'only memories from this tool')
    .option('--source-url <url>', 'only memories from this URL or document')
    .option('--created-after <time>', 'only memories written after this ISO time')
    .option('--created-before <time>', 'only memories written before this ISO time')
    .option('--expires-before <time>', 'only memories expiring before this ISO time')
    .option('--conflicts', 'only flagged conflicts')
    .option('--derived', 'only derived memories');
}

/** The filter the flags ask for (absent flags left out: the engine's schema is strict). */
export function filterFrom(
  f: FilterFlags & { session?: string },
  sessionFlag: string,
): MemoryFilter {
  const filter: Record<string, unknown> = {
    kinds: f.kind,
    authorities: f.authority,
    tag: f.tag,
    sessionId: sessionFlag === '--session' ? f.session : f.fromSession,
    tool: f.tool,
    sourceUri: f.sourceUrl,
    createdAfter: f.createdAfter,
    createdBefore: f.createdBefore,
    expiresBefore: f.expiresBefore,
    ...(f.conflicts && { conflict: true }),
    ...(f.derived && { derived: true }),
  };
  return Object.fromEntries(
    Object.entries(filter).filter(([, v]) => v !== undefined),
  ) as MemoryFilter;
}
