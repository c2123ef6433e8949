// Secrets and personal data as the policy gate judges them: a secret in any
// stored string refuses the write; personal data in the text is refused or
// redacted as the policy says, and in any other stored field (a key, an id)
// refused, since it cannot be redacted without changing what it names.
import { detectPersonalData, redactPersonalData } from './detect-personal-data.ts';
import { detectSecrets, type SecretFinding } from './detect-secrets.ts';
import { refuse, type GateRefusal } from './gate-refusal.ts';
import type { PersonalDataKind, Policy } from './policy-schema.ts';
import type { StoredField } from './stored-fields.ts';

export function uniq<T>(xs: readonly T[]): T[] {
  return [...new Set(xs)];
}

export function secretRefusal(findings: SecretFinding[], field: string): GateRefusal {
  return refuse(
    'refused_secret',
    `the ${field} contains a secret or credential, which is never stored`,
    {
      field,
      ruleIds: uniq(findings.map((f) => f.ruleId)),
      secretKinds: uniq(findings.map((f) => f.messageId)),
    },
  );
}

/**
 * Personal data: refused kinds refuse the write, redacted kinds are replaced.
 * Shared by writes and session messages.
 */
export function applyPersonalData(
  policy: Policy,
  text: string,
): GateRefusal | { ok: true; text: string; redactions: PersonalDataKind[] } {
  const { actions, phoneRegion } = policy.personalData;
  const watched = (Object.keys(actions) as PersonalDataKind[]).filter(
    (k) => actions[k] !== 'allow',
  );
  if (watched.length === 0) return { ok: true, text, redactions: [] };
  const findings = detectPersonalData(text, watched, { phoneRegion });
  const refused = uniq(findings.filter((f) => actions[f.kind] === 'refuse').map((f) => f.kind));
  if (refused.length > 0) {
    return refuse(
      'refused_personal_data',
      `the text contains personal data the policy refuses: ${refused.join(', ')}`,
      { kinds: refused },
    );
  }
  const redact = findings.filter((f) => actions[f.kind] === 'redact');
  return {
    ok: true,
    text: redactPersonalData(text, redact),
    redactions: uniq(redact.map((f) => f.kind)),
  };
}

/** The first stored field that holds a secret, refused naming it. */
export async function secretsInFields(fields: readonly StoredField[]): Promise<GateRefusal | null> {
  const found = await Promise.all(fields.map((f) => detectSecrets(f.value)));
  const i = found.findIndex((x) => x.length > 0);
  return i >= 0 ? secretRefusal(found[i]!, fields[i]!.path) : null;
}

/**
 * Strings stored outside any memory's text (a session id, a kv key on its
 * own route): refused when they hold a secret, or personal data the policy
 * refuses or redacts. Null when they may be stored.
 */
export async function evaluateStoredFields(
  policy: Policy,
  fields: readonly StoredField[],
): Promise<GateRefusal | null> {
  return (await secretsInFields(fields)) ?? personalDataInFields(policy, fields);
}

/**
 * Personal data in a stored field other than the text: a key, an id or a
 * name cannot be redacted without changing what it names, so any kind the
 * policy refuses or redacts refuses the write, naming the field.
 */
export function personalDataInFields(
  policy: Policy,
  fields: readonly StoredField[],
): GateRefusal | null {
  const { actions, phoneRegion } = policy.personalData;
  const watched = (Object.keys(actions) as PersonalDataKind[]).filter(
    (k) => actions[k] !== 'allow',
  );
  if (watched.length === 0) return null;
  for (const f of fields) {
    const kinds = uniq(detectPersonalData(f.value, watched, { phoneRegion }).map((x) => x.kind));
    if (kinds.length > 0)
      return refuse(
        'refused_personal_data',
        `the ${f.path} contains personal data (${kinds.join(', ')}), which a field other than the text cannot hold`,
        { field: f.path, kinds },
      );
  }
  return null;
}
