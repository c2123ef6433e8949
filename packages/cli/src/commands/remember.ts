// `keepgraph remember`: store one memory through the full write gate. Prints
// the new id (or the result as JSON); a policy refusal exits with code 2.
import { Option, type Command } from 'commander';
import {
  AUTHORITIES,
  KeepGraphError,
  MEMORY_KINDS,
  SENSITIVITIES,
  isKeepGraphError,
  type MemoryInput,
  type OriginInput,
} from '@keepgraph/core/registry';
import { globalOptions, runsUseCases, withRuntime } from '../context.ts';
import type { Io } from '../io.ts';
import { intOption, numberOption } from '../parse-options.ts';

interface RememberOptions {
  owner: string;
  text: string;
  kind: MemoryInput['kind'];
  session?: string;
  turn?: string;
  authority?: MemoryInput['authority'];
  key?: string;
  ttl?: number;
  tag?: string[];
  sourceUrl?: string;
  tool?: string;
  derivedFrom?: string[];
  confidence?: number;
  sensitivity?: MemoryInput['sensitivity'];
  json?: boolean;
}

/**
 * Build the engine input from the flags. An empty origin is passed through
 * on purpose: the engine's own `invalid_input` message says which origin
 * fields exist, so the CLI does not keep a second copy of that rule.
 */
export function rememberInput(o: RememberOptions): MemoryInput {
  const origin: OriginInput = {
    ...(o.session !== undefined ? { sessionId: o.session } : {}),
    ...(o.turn !== undefined ? { turn: o.turn } : {}),
    ...(o.sourceUrl !== undefined ? { source: { kind: 'url' as const, uri: o.sourceUrl } } : {}),
    ...(o.tool !== undefined ? { tool: { name: o.tool } } : {}),
  };
  return {
    kind: o.kind,
    text: o.text,
    origin,
    ...(o.authority ? { authority: o.authority } : {}),
    ...(o.key !== undefined ? { key: o.key } : {}),
    ...(o.ttl !== undefined ? { ttlSeconds: o.ttl } : {}),
    ...(o.tag ? { tags: o.tag } : {}),
    ...(o.derivedFrom ? { derivedFrom: o.derivedFrom } : {}),
    ...(o.confidence !== undefined ? { confidence: o.confidence } : {}),
    ...(o.sensitivity ? { sensitivity: o.sensitivity } : {}),
  };
}

/** The flag behind each field of the engine's input, for its error messages. */
const FLAG_OF: Readonly<Record<string, string>> = {
  'origin.sessionId': '--session',
  'origin.turn': '--turn',
  'origin.tool': '--tool',
  'origin.source': '--source-url',
  'origin.source.uri': '--source-url',
  derivedFrom: '--derived-from',
  ttlSeconds: '--ttl',
  tags: '--tag',
  text: '--text',
  kind: '--kind',
  key: '--key',
  confidence: '--confidence',
  authority: '--authority',
};

/**
 * The engine's `invalid_input` as the CLI user typed it: in flags, not in
 * the JSON fields they fill (`--session`, not `origin.sessionId`).
 */
export function inFlags(e: unknown): unknown {
  if (!isKeepGraphError(e) || e.code !== 'invalid_input') return e;
  const issues = (e.details?.issues ?? []) as { path?: string; message?: string }[];
  if (issues.some((i) => i.path === 'origin' && /at least one of/.test(i.message ?? '')))
    return new KeepGraphError(
      'invalid_input',
      'say where the memory came from: give at least one of --session (with --turn), --source-url, --tool',
      e.details,
    );
  let message = e.message;
  for (const [field, flag] of Object.entries(FLAG_OF).sort((a, b) => b[0].length - a[0].length))
    message = message.replaceAll(`${field}:`, `${flag}:`);
  return message === e.message ? e : new KeepGraphError('invalid_input', message, e.details);
}

export function registerRemember(program: Command, io: Io): void {
  runsUseCases(program.command('remember'), ['remember'])
    .description(
      'store one memory (origin: give at least one of --session, --turn, --source-url, --tool)',
    )
    .requiredOption('--owner <id>', 'owner the memory belongs to')
    .requiredOption('--text <text>', 'the memory text')
    .addOption(
      new Option('--kind <kind>', 'memory kind').choices(MEMORY_KINDS).makeOptionMandatory(),
    )
    .option('--session <id>', 'origin: session id')
    .option('--turn <n>', 'origin: turn within the session')
    .addOption(
      new Option(
        '--authority <authority>',
        'who vouches for it (at most what --role allows)',
      ).choices(AUTHORITIES),
    )
    .option('--key <key>', 'key: a newer claim under the same key supersedes this one')
    .option('--ttl <seconds>', 'lifetime in seconds (within the policy bounds)', intOption(1))
    .option('--tag <tag...>', 'tags (repeatable)')
    .option('--source-url <url>', 'origin: URL the claim was read from')
    .option('--tool <name>', 'origin: tool that returned the claim')
    .option('--derived-from <id...>', 'ids of the memories this one was derived from (repeatable)')
    .option('--confidence <c>', 'confidence from 0 to 1', numberOption(0, 1))
    .addOption(
      new Option('--sensitivity <level>', 'sensitivity (high is always refused)').choices(
        SENSITIVITIES,
      ),
    )
    .option('--json', 'print the stored memory as JSON')
    .action(async (opts: RememberOptions, cmd: Command) => {
      const input = rememberInput(opts);
      await withRuntime(globalOptions(cmd), async ({ engine, caller }) => {
        const r = await engine.remember(caller, opts.owner, input).catch((e: unknown) => {
          throw inFlags(e);
        });
        if (opts.json) {
          io.out(JSON.stringify(r, null, 2));
          return;
        }
        io.out(r.memory.id);
        // Notes go to stderr so that `id=$(keepgraph remember ...)` stays clean.
        if (r.memory.redactions.length) io.err(`note: redacted ${r.memory.redactions.join(', ')}`);
        if (r.superseded) io.err(`note: supersedes ${r.superseded}`);
        if (r.memory.conflict)
          io.err('note: kept as a conflicting claim beside a higher-authority one');
      });
    });
}
