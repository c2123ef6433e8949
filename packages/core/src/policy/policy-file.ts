// Reading a policy: YAML text parsed and validated against PolicySchema, a
// file read from disk, and the shipped default (policy/default.yaml). Every
// failure is `invalid_policy` with each problem's path.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { KeepGraphError } from '../domain/errors.ts';
import { PolicySchema, type Policy } from './policy-schema.ts';

/** Absolute path of the shipped default policy, `packages/core/policy/default.yaml`. */
export const DEFAULT_POLICY_PATH = fileURLToPath(
  new URL('../../policy/default.yaml', import.meta.url),
);

/**
 * Parses and validates a policy written in YAML.
 *
 * Throws `KeepGraphError('invalid_policy')` whose message lists each problem
 * with its path (e.g. `kinds.fact.ttl: must satisfy min <= default <= max`)
 * and whose `details.issues` holds them as `{ path, message }`.
 */
export function parsePolicy(yamlText: string): Policy {
  let raw: unknown;
  try {
    raw = parseYaml(yamlText, { prettyErrors: true });
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    throw new KeepGraphError('invalid_policy', `policy is not valid YAML: ${message}`, {
      issues: [{ path: '', message }],
    });
  }
  const result = PolicySchema.safeParse(raw);
  if (!result.success) {
    const issues = result.error.issues.map((i) => ({
      path: i.path.map(String).join('.'),
      message: i.message,
    }));
    throw new KeepGraphError(
      'invalid_policy',
      `invalid policy:\n${issues.map((i) => `  ${i.path || '(root)'}: ${i.message}`).join('\n')}`,
      { issues },
    );
  }
  return result.data;
}

/** Reads and parses a policy file: the one IO helper of the policy module. */
export function loadPolicyFile(path: string): Policy {
  let yamlText: string;
  try {
    yamlText = readFileSync(path, 'utf8');
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    throw new KeepGraphError('invalid_policy', `cannot read policy file ${path}: ${message}`, {
      path,
      issues: [{ path: '', message }],
    });
  }
  return parsePolicy(yamlText);
}

let defaultMemo: Policy | undefined;

/** The shipped default policy, read once; each call returns a fresh copy. */
export function defaultPolicy(): Policy {
  defaultMemo ??= loadPolicyFile(DEFAULT_POLICY_PATH);
  return structuredClone(defaultMemo);
}
