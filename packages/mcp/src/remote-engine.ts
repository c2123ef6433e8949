// The tools' engine when the MCP server runs beside a remote KeepGraph
// (`keepgraph mcp --url URL --key KEY`): each tool's use-case is the TS
// client's method of the same name, whose arguments are the engine
// method's after the caller (the server's credential is the key); an
// exposed use-case's tool is the client's `invoke` of it. Errors
// come back as core's KeepGraphError with the server's code, so tool errors
// read the same whichever engine answers.
import { KeepGraphError as ClientError, type KeepGraphClient } from '@keepgraph/client';
import { KeepGraphError, type Engine, type ErrorCode } from '@keepgraph/core';
import { exposedTools } from './exposed-tools.ts';
import { TOOLS } from './tools.ts';

type Method = (...args: unknown[]) => Promise<unknown>;

export function remoteEngine(client: KeepGraphClient): Engine {
  const methods: Record<string, Method> = {};
  const useCases = new Set<string>([
    ...TOOLS.map((t) => t.useCase),
    'listMemories',
    'sessionContext',
  ]);
  const exposed = new Set<string>(exposedTools().map((t) => t.useCase));
  for (const name of useCases) {
    const call: Method = exposed.has(name)
      ? (...args) => client.invoke(name as never, args as never)
      : name === 'importMemories'
        ? (ownerId, input) => {
            const { lines } = (input ?? {}) as { lines?: unknown };
            if (!Array.isArray(lines))
              throw new KeepGraphError('invalid_input', 'lines: must be a list of JSONL lines');
            return client.importMemories(String(ownerId), lines.join('\n'));
          }
        : (...args) =>
            (client[name as keyof KeepGraphClient] as unknown as Method).apply(client, args);
    methods[name] = async (_caller, ...args) => {
      try {
        return await call(...args);
      } catch (e) {
        if (e instanceof ClientError)
          throw new KeepGraphError(e.code as ErrorCode, e.message, e.details);
        throw e;
      }
    };
  }
  return methods as unknown as Engine;
}
