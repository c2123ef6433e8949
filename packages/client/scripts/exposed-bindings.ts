// The SDKs' bindings of the exposed use-cases (core's exposure.ts), rendered
// from the registry: for the TypeScript client (which loads nothing of core
// at run time) a typed table, for the Python client the same table as JSON.
// `pnpm generate:bindings` writes both files; a workspace test renders them
// again and fails while a committed file differs, so adding an exposed
// use-case means running the command, never editing an SDK.
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { USE_CASES, httpBinding, type ExposedUseCase, type HttpBinding } from '@keepgraph/core';

export const TS_FILE = 'packages/client/src/exposed.generated.ts';
export const PYTHON_FILE = 'clients/python/src/keepgraph/_exposed.py';

/** Every exposed use-case's binding, by name, in the registry's order. */
export function exposedBindings(): Record<string, HttpBinding> {
  const out: Record<string, HttpBinding> = {};
  for (const [name, u] of Object.entries(USE_CASES) as [string, Partial<ExposedUseCase>][])
    if (u.expose) out[name] = httpBinding(u as ExposedUseCase);
  return out;
}

const HEADER = 'Generated from the use-case registry by `pnpm generate:bindings`: do not edit.';

/** The TypeScript file, formatted as the tree's prettier settings say. */
export async function renderTs(root: string): Promise<string> {
  const bindings = exposedBindings();
  const routes = Object.entries(bindings).map(([name, b]) => `  ${name}: '${b.method} ${b.path}',`);
  const text = `// ${HEADER}
// The HTTP binding of every use-case whose registry row declares its
// exposure (core's exposure.ts); KeepGraphClient.invoke calls them by name.
import type { HttpBinding } from '@keepgraph/core';

/** Each exposed use-case's route, as ROUTES spells routes. */
export const EXPOSED_ROUTES = {
${routes.join('\n')}
} as const;

export type ExposedName = keyof typeof EXPOSED_ROUTES;

/** How each exposed use-case's arguments travel (core's httpBinding). */
export const EXPOSED: Readonly<Record<ExposedName, HttpBinding>> = ${JSON.stringify(bindings, null, 2)};
`;
  const file = join(root, TS_FILE);
  return format(text, { ...(await resolveConfig(file)), filepath: file });
}

export function renderPython(): string {
  return `"""${HEADER}

The HTTP binding of every use-case whose registry row declares its exposure
(core's exposure.ts); \`\`Client.invoke\`\` calls them by name."""

from __future__ import annotations

import json
from typing import Any, Dict

EXPOSED: Dict[str, Dict[str, Any]] = json.loads(
    r"""${JSON.stringify(exposedBindings())}"""
)
`;
}
