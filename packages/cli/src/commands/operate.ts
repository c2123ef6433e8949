// Operator commands: `audit verify`, `audit list`, `kpis`, `owners` and `expire`.
// Locally these run as `operator` unless --role is given: whoever holds the
// data directory can read and rewrite it anyway, so they are its operator.
// (The HTTP server takes roles from each request's credential, never from here.)
import type { Command } from 'commander';
import type { Engine, Caller, ExpiryRun } from '@keepgraph/core';
import { globalOptions, runsUseCases, withRuntime } from '../context.ts';
import { CliExit, EXIT } from '../exit.ts';
import { formatAuditEvent, formatExpiry, formatKpis } from '../format.ts';
import type { Io } from '../io.ts';
import { intOption } from '../parse-options.ts';

const asOperator = { operatorByDefault: true } as const;

export function registerAudit(program: Command, io: Io): void {
  const audit = program.command('audit').description('the hash-chained audit log (operator)');
  runsUseCases(audit.command('verify'), ['auditVerify'])
    .description('recompute the hash chain from genesis; exit 1 when broken')
    .option('--json', 'print the verification as JSON')
    .action(async (f: { json?: boolean }, cmd: Command) => {
      await withRuntime(globalOptions(cmd, asOperator), async ({ engine, caller }) => {
        const v = await engine.auditVerify(caller);
        if (f.json) io.out(JSON.stringify(v, null, 2));
        else if (v.ok)
          io.out(`ok: ${v.checked} events checked, chain intact up to seq ${v.checked}`);
        else
          io.out(
            `broken: at seq ${v.brokenAt} (${v.problem}); ${v.checked} events verified before it`,
          );
        if (!v.ok) throw new CliExit(EXIT.error);
      });
    });
  runsUseCases(audit.command('list'), ['auditList'])
    .description('list audit events, oldest first (ids and hashes, never content)')
    .option('--owner <id>', 'only events of this owner')
    .option('--after <seq>', 'only events after this sequence number', intOption(0))
    .option('--limit <n>', 'at most this many events', intOption(1, 1000), 100)
    .option('--json', 'print the events as JSON')
    .action(
      async (
        f: { owner?: string; after?: number; limit: number; json?: boolean },
        cmd: Command,
      ) => {
        await withRuntime(globalOptions(cmd, asOperator), async ({ engine, caller }) => {
          const events = await engine.auditList(caller, {
            ...(f.owner !== undefined ? { ownerId: f.owner } : {}),
            ...(f.after !== undefined ? { afterSeq: f.after } : {}),
            limit: f.limit,
          });
          if (f.json) return io.out(JSON.stringify(events, null, 2));
          if (events.length === 0) return io.out('no audit events');
          for (const e of events) io.out(formatAuditEvent(e));
        });
      },
    );
}

export function registerKpis(program: Command, io: Io): void {
  runsUseCases(program.command('kpis'), ['kpis'])
    .description(
      'aggregate figures: memories, attribution, refusals, expiry on schedule (operator)',
    )
    .option('--json', 'print the KPIs as JSON')
    .action(async (f: { json?: boolean }, cmd: Command) => {
      await withRuntime(globalOptions(cmd, asOperator), async ({ engine, caller }) => {
        const k = await engine.kpis(caller);
        if (f.json) return io.out(JSON.stringify(k, null, 2));
        for (const line of formatKpis(k)) io.out(line);
      });
    });
}

export function registerOwners(program: Command, io: Io): void {
  runsUseCases(program.command('owners'), ['listOwners'])
    .description('the owners holding memories, in id order, with how many each (operator)')
    .option('--after <id>', 'only owners after this id (the `next` of a previous page)')
    .option('--limit <n>', 'at most this many owners', intOption(1, 1000), 100)
    .option('--json', 'print the page as JSON')
    .action(async (f: { after?: string; limit: number; json?: boolean }, cmd: Command) => {
      await withRuntime(globalOptions(cmd, asOperator), async ({ engine, caller }) => {
        const page = await engine.listOwners(caller, {
          ...(f.after !== undefined && { after: f.after }),
          limit: f.limit,
        });
        if (f.json) return io.out(JSON.stringify(page, null, 2));
        if (page.owners.length === 0) return io.out('no owners');
        for (const o of page.owners) io.out(`${o.ownerId}  ${o.memories} memories`);
        if (page.next !== null) io.out(`more: keepgraph owners --after ${page.next}`);
      });
    });
}

/** One full sweep: expireDue in pages until nothing due is left. */
export async function sweepOnce(
  engine: Engine,
  caller: Caller,
  pageSize = 1000,
): Promise<ExpiryRun> {
  const total: ExpiryRun = { purged: 0, owners: 0, lagsMs: [], receipts: [] };
  for (;;) {
    const r = await engine.expireDue(caller, { limit: pageSize });
    total.purged += r.purged;
    total.lagsMs.push(...r.lagsMs);
    total.receipts.push(...r.receipts);
    if (r.purged < pageSize) {
      // Distinct owners over all pages, not the sum of per-page counts.
      total.owners = new Set(total.receipts.map((x) => x.ownerId)).size;
      return total;
    }
  }
}

export function registerExpire(program: Command, io: Io): void {
  runsUseCases(program.command('expire'), ['expireDue'])
    .description('run one expiry sweep now and print what was purged (operator)')
    .option('--json', 'print the sweep as JSON')
    .action(async (f: { json?: boolean }, cmd: Command) => {
      await withRuntime(globalOptions(cmd, asOperator), async ({ engine, caller }) => {
        const r = await sweepOnce(engine, caller);
        if (f.json) return io.out(JSON.stringify(r, null, 2));
        for (const line of formatExpiry(r)) io.out(line);
      });
    });
}
