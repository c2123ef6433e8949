// `keepgraph start`: serve the HTTP API (and its docs) over the local data
// directory until SIGINT/SIGTERM. The server owns its runtime and shutdown;
// the roles of its callers come from its configuration, not from requests.
import type { Command } from 'commander';
import { KeepGraphError } from '@keepgraph/core/registry';
import type { ServerConfig } from '@keepgraph/runtime';
import { globalOptions } from '../context.ts';
import type { Io } from '../io.ts';
import { intOption } from '../parse-options.ts';

interface StartFlags {
  port?: number;
  host?: string;
  metricsToken?: string;
  log: boolean;
}

export function registerStart(program: Command, io: Io): void {
  program
    .command('start')
    .description(
      'serve the HTTP API over the data directory (KEEPGRAPH_* variables configure the rest)',
    )
    .option(
      '--port <n>',
      'port to listen on (default KEEPGRAPH_PORT or 7411; 0 picks a free one)',
      intOption(0, 65_535),
    )
    .option('--host <host>', 'interface to bind (default KEEPGRAPH_HOST or 127.0.0.1)')
    .option(
      '--metrics-token <token>',
      'a bearer token that reads GET /metrics only (default KEEPGRAPH_METRICS_TOKEN, which stays out of the process list)',
    )
    .option('--no-log', 'do not log requests')
    .action(async (f: StartFlags, cmd: Command) => {
      const g = globalOptions(cmd);
      // Loaded on demand, like the runtime (see context.ts).
      const { loadServerConfig } = await import('@keepgraph/runtime');
      const { startServer } = await import('@keepgraph/server');
      const { openAiExtractorFromEnv } = await import('@keepgraph/extractor-openai');
      // The server's callers are known by their credentials: --role and
      // --principal are the local commands' and mean nothing to it.
      const given = (k: string) => cmd.getOptionValueSourceWithGlobals(k) === 'cli';
      if (given('role') || given('principal'))
        throw new KeepGraphError(
          'invalid_input',
          "start takes no --role or --principal: each request's API key or JWT says who calls (keepgraph keys create)",
        );
      const overrides: Partial<ServerConfig> = {
        dataDir: g.dataDir,
        ...(f.port !== undefined ? { port: f.port } : {}),
        ...(f.host !== undefined ? { host: f.host } : {}),
        ...(f.metricsToken !== undefined ? { metricsToken: f.metricsToken } : {}),
        ...(g.policyPath ? { policyPath: g.policyPath } : {}),
        ...(g.modelId ? { modelId: g.modelId } : {}),
      };
      const config = loadServerConfig(process.env, overrides);
      // startServer handles SIGINT/SIGTERM itself; its socket keeps us alive.
      const extractor = openAiExtractorFromEnv(process.env);
      const server = await startServer(config, {
        logger: f.log,
        ...(extractor ? { extractor } : {}),
      });
      io.out(`KeepGraph listening on ${server.url} (data ${config.dataDir})`);
      io.out(`API docs: ${server.url}/docs`);
      if (server.operatorKey) {
        // Shown this once (the store keeps only its hash); never logged.
        io.out(`Operator key (also in ${server.operatorKey.path}, mode 0600):`);
        io.out(`  ${server.operatorKey.key}`);
        io.out(
          'Send it as: Authorization: Bearer <key>. Make narrower keys with: keepgraph keys create',
        );
      }
    });
}
