// The MCP tools of the use-cases that declare their exposure in core's
// registry (exposure.ts) with a tool: each derived from its row, with
// nothing written here per use-case. The tool's arguments are the engine
// method's after the owner (a single object argument's fields, or each
// argument by name), documented by core's own schemas; the answer is JSON
// rendered as data, as every answer without memory text is.
import { z } from 'zod';
import {
  USE_CASES,
  argumentsFrom,
  httpBinding,
  objectShapeOf,
  renderJsonAsData,
  type ExposedUseCase,
  type UseCaseName,
} from '@keepgraph/core/registry';
import { HINTS, type ToolDef } from './tool-def.ts';

/** One tool per exposed use-case whose row names an MCP tool. */
export function exposedTools(): ToolDef[] {
  const rows = Object.entries(USE_CASES) as [UseCaseName, Partial<ExposedUseCase>][];
  const tools: ToolDef[] = [];
  for (const [useCase, row] of rows) {
    if (!row.expose?.mcp) continue;
    const u = row as ExposedUseCase;
    const b = httpBinding(u);
    const fields: Record<string, z.ZodType> = {};
    u.args.forEach((a, i) => {
      if (a.name === 'ownerId') return;
      if (b.args[i]!.in === 'whole') Object.assign(fields, objectShapeOf(a.schema));
      else fields[a.name] = a.schema;
    });
    tools.push({
      name: u.expose.mcp!.name,
      useCase,
      description: u.expose.summary,
      hints: HINTS[u.expose.mcp!.kind],
      input: z.object(fields),
      // The tool's fields are the path's other arguments and the rest, by name.
      args: (input, ownerId) => {
        const whole = b.args.some((a) => a.in === 'whole');
        const rest = whole
          ? Object.fromEntries(Object.entries(input).filter(([k]) => k in fields))
          : input;
        return argumentsFrom(
          b,
          { ...input, ownerId },
          whole && Object.keys(rest).length === 0 ? undefined : rest,
        );
      },
      text: (result) => renderJsonAsData(result),
    });
  }
  return tools;
}
