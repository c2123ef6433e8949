// `keys create | list | revoke`: the API keys a server over this data
// directory accepts. Local, as the data directory's operator (whoever holds
// it can read and rewrite it anyway). A created key is printed once: the
// store keeps only its hash.
import type { Command } from 'commander';
import type { ApiKeyInfo } from '@keepgraph/core';
import { KeepGraphError, ROLES } from '@keepgraph/core/registry';
import { globalOptions, runsUseCases, withRuntime } from '../context.ts';
import type { Io } from '../io.ts';

/**
 * Key commands run as the data directory's operator whatever --role says:
 * on `keys create`, --role is the new key's role. (--role is a global
 * option, so commander hands it to the program, not to the subcommand.)
 */
function asOperator(cmd: Command) {
  return { ...globalOptions(cmd, { operatorByDefault: true }), role: 'operator' as const };
}

/** The --role typed on the command line, if any. */
function typedRole(cmd: Command): string | undefined {
  return cmd.getOptionValueSourceWithGlobals('role') === 'cli'
    ? cmd.optsWithGlobals<{ role: string }>().role
    : undefined;
}

interface CreateFlags {
  owners?: string;
  allOwners?: boolean;
  name?: string;
  expires?: string;
  json?: boolean;
}

function formatKey(k: ApiKeyInfo): string {
  const owners = k.owners === 'all' ? 'all owners' : `owners ${k.owners.join(',')}`;
  const state = k.revokedAt
    ? `revoked ${k.revokedAt}`
    : k.live
      ? `expires ${k.expiresAt ?? 'never'}`
      : `expired ${k.expiresAt}`;
  return `${k.id}  ${k.role}  ${owners}  "${k.name}"  created ${k.createdAt}  ${state}`;
}

function usage(message: string): never {
  throw new KeepGraphError('invalid_input', message);
}

export function registerKeys(program: Command, io: Io): void {
  const keys = program
    .command('keys')
    .description("API keys for the server over this data directory (its operator's)");
  runsUseCases(keys.command('create'), ['createKey'])
    .description(
      `create a key and print it once (only its hash is kept); --role <role> is the key's role: ${ROLES.join(', ')}`,
    )
    .option('--owners <ids>', 'comma-separated owner ids the key may act on')
    .option('--all-owners', 'the key may act on every owner (operators always do)')
    .option('--name <name>', 'what the key is for, shown in lists')
    .option('--expires <duration>', 'lifetime, e.g. 90d or 12h (default: until revoked)')
    .option('--json', 'print {"id","name","role","owners","expiresAt","key"}')
    .action(async (f: CreateFlags, cmd: Command) => {
      const role = typedRole(cmd);
      if (!role) usage(`--role is required: the key's role (one of ${ROLES.join(', ')})`);
      if (!f.name) usage('--name is required');
      if ((f.owners === undefined) === !f.allOwners)
        usage('give exactly one of --owners a,b and --all-owners');
      const owners = f.allOwners
        ? 'all'
        : f
            .owners!.split(',')
            .map((o) => o.trim())
            .filter((o) => o !== '');
      await withRuntime(asOperator(cmd), async ({ engine, caller }) => {
        const k = await engine.createKey(caller, {
          name: f.name,
          role,
          owners,
          ...(f.expires !== undefined && { expiresIn: f.expires }),
        });
        if (f.json) {
          const { id, name, role, owners: o, expiresAt, key } = k;
          return io.out(JSON.stringify({ id, name, role, owners: o, expiresAt, key }));
        }
        io.out(formatKey(k));
        io.out('key (shown this once; store it now):');
        io.out(`  ${k.key}`);
      });
    });
  runsUseCases(keys.command('list'), ['listKeys'])
    .description('every key, revoked ones too (never a key or its hash)')
    .option('--json', 'print the keys as JSON')
    .action(async (f: { json?: boolean }, cmd: Command) => {
      await withRuntime(asOperator(cmd), async ({ engine, caller }) => {
        const all = await engine.listKeys(caller);
        if (f.json) return io.out(JSON.stringify(all, null, 2));
        if (all.length === 0) return io.out('no API keys');
        for (const k of all) io.out(formatKey(k));
      });
    });
  runsUseCases(keys.command('revoke'), ['revokeKey'])
    .description('revoke a key: every server over this store refuses it from its next request')
    .argument('<id>', 'the key id (as keys list shows it)')
    .option('--json', 'print the revoked key as JSON')
    .action(async (id: string, f: { json?: boolean }, cmd: Command) => {
      await withRuntime(asOperator(cmd), async ({ engine, caller }) => {
        const k = await engine.revokeKey(caller, id);
        if (f.json) return io.out(JSON.stringify(k, null, 2));
        io.out(formatKey(k));
      });
    });
}
