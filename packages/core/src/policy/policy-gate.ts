// The policy gate: every write passes here before anything is stored
// (invariant 4). It answers with the text to store (personal data redacted as
// the policy says) and the TTL to apply, or with a refusal code. Refusal
// details name rules, kinds and numbers, never the refused text, because they
// are returned to callers and audited.
import { instructionCheckForm } from './instruction-text.ts';
import { MAX_TEXT_CHARS } from '../domain/record.ts';
import type { Authority, MemoryKind, OriginInput, Sensitivity } from '../domain/record.ts';
import type { StoredField } from './stored-fields.ts';
import { detectSecrets } from './detect-secrets.ts';
import { refuse, type GateRefusal } from './gate-refusal.ts';
import {
  applyPersonalData,
  personalDataInFields,
  secretRefusal,
  secretsInFields,
  uniq,
} from './sensitive-data.ts';
import type { PersonalDataKind, Policy, TtlBounds } from './policy-schema.ts';

export type { GateRefusal } from './gate-refusal.ts';
export { evaluateStoredFields } from './sensitive-data.ts';

/** What the gate needs to know about a write. */
export interface GateInput {
  kind: MemoryKind;
  text: string;
  authority: Authority;
  sensitivity: Sensitivity;
  origin: OriginInput;
  /** Seconds until expiry the writer asked for; the policy default when absent. */
  ttlSeconds?: number;
  /** True when derivedFrom is non-empty. */
  derived: boolean;
  /** How many memories derivedFrom names (absent: as many as `derived` implies, 0 or 1). */
  sourceCount?: number;
  /** Every other string the write stores (stored-fields.ts): read for secrets and personal data too. */
  fields?: readonly StoredField[];
}

/** The gate's answer to a write. */
export type GateDecision =
  { ok: true; text: string; redactions: PersonalDataKind[]; ttlSeconds: number } | GateRefusal;

/** The gate's answer to a session-buffer message. */
export type SessionGateDecision =
  { ok: true; text: string; redactions: PersonalDataKind[] } | GateRefusal;

/**
 * A memory naming more sources than the policy's limits.derivedFrom
 * (invariant 13): every lineage, cascade and re-derivation through it would
 * be as wide. Exported so a write can be refused before its sources are read.
 */
export function tooManySources(policy: Policy, sourceCount: number): GateRefusal | null {
  const max = policy.limits.derivedFrom;
  if (sourceCount <= max) return null;
  return refuse(
    'refused_too_many_sources',
    `derivedFrom names ${sourceCount} memories; the policy allows at most ${max} (limits.derivedFrom)`,
    { max, named: sourceCount },
  );
}

// ---------------------------------------------------------------------------
// Policy-derived helpers
// ---------------------------------------------------------------------------

/** TTL bounds in seconds for a kind, with the authority's overrides merged in. */
export function ttlBounds(policy: Policy, kind: MemoryKind, authority: Authority): TtlBounds {
  const rule = policy.kinds[kind];
  return { ...rule.ttl, ...rule.ttlByAuthority[authority] };
}

/** The session buffer's bounds: exchanges kept per session and their TTL. */
export function sessionCap(policy: Policy): {
  maxExchanges: number;
  ttlSeconds: number;
  messageRoles: Policy['caps']['sessionBuffer']['messageRoles'];
} {
  return {
    maxExchanges: policy.caps.sessionBuffer.maxExchanges,
    ttlSeconds: policy.caps.sessionBuffer.ttl,
    messageRoles: policy.caps.sessionBuffer.messageRoles,
  };
}

/** The most memories one owner may hold before eviction (invariant 10). */
export function ownerCap(policy: Policy): number {
  return policy.caps.maxMemoriesPerOwner;
}

// Compiled once per policy object: patterns are kept as strings in the
// policy so that it stays plain, serialisable data.
interface Compiled {
  servicePhrases: Set<string>;
  /** Longest phrase, in words, to bound the segmentation below. */
  maxPhraseWords: number;
  instructionPatterns: RegExp[];
}
const compiledMemo = new WeakMap<Policy, Compiled>();

function compiled(policy: Policy): Compiled {
  let c = compiledMemo.get(policy);
  if (!c) {
    const phrases = policy.refuse.servicePhrases.map(normalise).filter((p) => p.length > 0);
    c = {
      servicePhrases: new Set(phrases),
      maxPhraseWords: Math.max(1, ...phrases.map((p) => p.split(' ').length)),
      instructionPatterns: policy.refuse.instructionPatterns.map((p) => new RegExp(p, 'iu')),
    };
    compiledMemo.set(policy, c);
  }
  return c;
}

// Case, punctuation and spacing do not make chatter into memory. Apostrophes
// are dropped rather than spaced so "don't" and "dont" compare equal.
function normalise(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/['\u2019]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * True when the whole text is made of service phrases ("ok, thanks!"): the
 * normalised words split into a sequence of listed phrases.
 */
function onlyServicePhrases(text: string, c: Compiled): boolean {
  const words = normalise(text).split(' ').filter(Boolean);
  if (words.length === 0) return false;
  // reachable[i]: the first i words split into phrases.
  const reachable = new Array<boolean>(words.length + 1).fill(false);
  reachable[0] = true;
  for (let i = 0; i < words.length; i++) {
    if (!reachable[i]) continue;
    for (let n = 1; n <= c.maxPhraseWords && i + n <= words.length; n++) {
      if (c.servicePhrases.has(words.slice(i, i + n).join(' '))) reachable[i + n] = true;
    }
  }
  return reachable[words.length] === true;
}

function hostMatches(host: string, pattern: string): boolean {
  return pattern.startsWith('*.') ? host.endsWith(pattern.slice(1)) : host === pattern;
}

function uriHost(uri: string): string | null {
  try {
    const host = new URL(uri).hostname.toLowerCase();
    // WHATWG URLs keep IPv6 brackets and may keep a trailing dot.
    return host.replace(/^\[|\]$/g, '').replace(/\.$/, '') || null;
  } catch {
    return null;
  }
}

function checkSource(policy: Policy, input: GateInput): GateRefusal | null {
  const { sources } = policy;
  const { origin, authority } = input;
  const acceptance = sources.authorities[authority];
  if (acceptance === 'never') {
    return refuse('refused_untrusted_source', `the policy accepts no ${authority} claims`, {
      reason: 'authority_not_accepted',
      authority,
    });
  }
  if (acceptance === 'with_source' && !origin.source && !origin.tool) {
    return refuse(
      'refused_untrusted_source',
      `${authority} claims are accepted only when the origin names a source or a tool call`,
      { reason: 'authority_needs_source', authority },
    );
  }
  const sourceKinds = uniq([
    ...(origin.source ? [origin.source.kind] : []),
    ...(origin.tool ? (['tool'] as const) : []),
  ]);
  for (const sourceKind of sourceKinds) {
    if (!sources.acceptKinds.includes(sourceKind)) {
      return refuse(
        'refused_untrusted_source',
        `the policy does not accept sources of kind ${sourceKind}`,
        {
          reason: 'source_kind_not_accepted',
          sourceKind,
        },
      );
    }
  }
  if (origin.source && (sources.hosts.allow.length > 0 || sources.hosts.deny.length > 0)) {
    // Host rules apply to any source whose uri is a URL, whatever its kind:
    // a `document` fetched from a denied host is no more trustworthy.
    const host = uriHost(origin.source.uri);
    if (host === null) {
      if (origin.source.kind === 'url' || sources.hosts.allow.length > 0) {
        return refuse(
          'refused_untrusted_source',
          'the source uri has no host the host rules can check',
          {
            reason: 'host_unknown',
            sourceKind: origin.source.kind,
          },
        );
      }
    } else if (sources.hosts.deny.some((p) => hostMatches(host, p))) {
      return refuse('refused_untrusted_source', `the source host ${host} is denied by the policy`, {
        reason: 'host_denied',
        host,
      });
    } else if (
      sources.hosts.allow.length > 0 &&
      !sources.hosts.allow.some((p) => hostMatches(host, p))
    ) {
      return refuse(
        'refused_untrusted_source',
        `the source host ${host} is not on the policy's allow list`,
        {
          reason: 'host_not_allowed',
          host,
        },
      );
    }
  }
  return null;
}

/**
 * Decides whether a write may be stored, and with which text and TTL.
 *
 * Checks run cheapest first and stop at the first refusal; secrets are looked
 * for before anything that could echo the text back (redaction):
 * kind not kept, high sensitivity, too short (kinds in
 * `text.minCharsExemptKinds` exempt), too long, only service phrases or an
 * instruction pattern, secrets (in the text and the source uri), personal data
 * (refuse or redact), untrusted source or authority, missing `derivedFrom`,
 * TTL out of range. Lengths count the trimmed text.
 */
export async function evaluateWrite(policy: Policy, input: GateInput): Promise<GateDecision> {
  const { kind, authority } = input;
  const rule = policy.kinds[kind];
  if (!rule.keep) {
    return refuse('refused_kind_not_kept', `the policy keeps no ${kind} memories`, { kind });
  }
  if (input.sensitivity === 'high') {
    return refuse('refused_high_sensitivity', 'high-sensitivity memories are never stored', {
      sensitivity: input.sensitivity,
    });
  }
  const length = input.text.trim().length;
  const { minChars, maxChars, minCharsExemptKinds } = policy.text;
  if (length < minChars && !minCharsExemptKinds.includes(kind)) {
    return refuse('refused_too_short', `the text is shorter than ${minChars} characters`, {
      minChars,
      length,
    });
  }
  if (length > maxChars) {
    return refuse('refused_too_long', `the text is longer than ${maxChars} characters`, {
      maxChars,
      length,
    });
  }
  const c = compiled(policy);
  if (onlyServicePhrases(input.text, c)) {
    return refuse(
      'refused_service_phrase',
      'the text is only a service phrase, not something to remember',
      {
        reason: 'service_phrase',
      },
    );
  }
  const checked = instructionCheckForm(input.text);
  const pattern = c.instructionPatterns.findIndex((re) => re.test(input.text) || re.test(checked));
  if (pattern >= 0) {
    return refuse(
      'refused_service_phrase',
      'the text contains an instruction to the agent, not something to remember',
      {
        reason: 'instruction_pattern',
        // The policy's own pattern, not the text that matched it.
        pattern: policy.refuse.instructionPatterns[pattern],
      },
    );
  }
  // A source uri is stored with the memory's origin, so a credential in it
  // (https://user:token@host/...) would be kept just the same.
  const uri = input.origin.source?.uri;
  const [inText, inUri] = await Promise.all([
    detectSecrets(input.text),
    uri ? detectSecrets(uri) : [],
  ]);
  if (inText.length > 0) return secretRefusal(inText, 'text');
  if (inUri.length > 0) return secretRefusal(inUri, 'origin.source.uri');
  const fields = input.fields ?? [];
  const secretField = await secretsInFields(fields);
  if (secretField) return secretField;

  const personal = applyPersonalData(policy, input.text);
  if (!personal.ok) return personal;
  const personalField = personalDataInFields(policy, [
    ...(uri ? [{ path: 'origin.source.uri', value: uri }] : []),
    ...fields,
  ]);
  if (personalField) return personalField;

  const untrusted = checkSource(policy, input);
  if (untrusted) return untrusted;

  const { requireDerivedFrom } = policy.sources;
  if (
    !input.derived &&
    (requireDerivedFrom.kinds.includes(kind) || requireDerivedFrom.authorities.includes(authority))
  ) {
    return refuse(
      'refused_missing_sources',
      `${requireDerivedFrom.kinds.includes(kind) ? `${kind} memories` : `${authority} claims`} must name the memories they derive from`,
      { kind, authority },
    );
  }

  const fanOut = tooManySources(policy, input.sourceCount ?? 0);
  if (fanOut) return fanOut;

  const bounds = ttlBounds(policy, kind, authority);
  if (
    input.ttlSeconds !== undefined &&
    (input.ttlSeconds < bounds.min || input.ttlSeconds > bounds.max)
  ) {
    return refuse(
      'refused_ttl_out_of_range',
      `a ${authority} ${kind} may live between ${bounds.min} and ${bounds.max} seconds`,
      { min: bounds.min, max: bounds.max, given: input.ttlSeconds },
    );
  }
  return {
    ok: true,
    text: personal.text,
    redactions: personal.redactions,
    ttlSeconds: input.ttlSeconds ?? bounds.default,
  };
}

/**
 * The gate for session-buffer messages: secrets and refused personal data
 * are refused, personal data set to redact is redacted. Chatter is what a
 * session buffer holds, so there are no length-minimum or service-phrase
 * checks; only the engine's hard ceiling, MAX_TEXT_CHARS, bounds the length.
 */
export async function evaluateSessionMessage(
  policy: Policy,
  text: string,
): Promise<SessionGateDecision> {
  if (text.length > MAX_TEXT_CHARS) {
    return refuse('refused_too_long', `the message is longer than ${MAX_TEXT_CHARS} characters`, {
      maxChars: MAX_TEXT_CHARS,
      length: text.length,
    });
  }
  const secrets = await detectSecrets(text);
  if (secrets.length > 0) return secretRefusal(secrets, 'text');
  return applyPersonalData(policy, text);
}
