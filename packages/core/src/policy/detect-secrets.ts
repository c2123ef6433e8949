// Finds secrets and credentials in a text with secretlint's recommended rules,
// so the gate can refuse them (invariant 4). Findings carry the rule and the
// position only: the matched value is never kept, logged or returned.
import { lintSource } from '@secretlint/core';
import { secretLintProfiler } from '@secretlint/profiler';
import { rules as recommendedRules } from '@secretlint/secretlint-rule-preset-recommend';
import { creator as patternRule } from '@secretlint/secretlint-rule-pattern';
import { CREDENTIAL_PATTERNS } from './credential-patterns.ts';

/** One secret found: which secretlint rule fired and where. No content. */
export interface SecretFinding {
  /** e.g. `@secretlint/secretlint-rule-github`. */
  ruleId: string;
  /** Which kind of secret the rule saw, e.g. `GITHUB_TOKEN`, `AWSAccessKeyID`. */
  messageId: string;
  /** Character offsets `[start, end)` in the text, as secretlint reports them. */
  range: [number, number];
}

type SecretlintConfig = Parameters<typeof lintSource>[0]['options']['config'];

// The comment filter honours `secretlint-disable` comments inside the linted
// content; here that content is a memory someone else wrote, so honouring it
// would let the text switch the check off.
const FILTER_COMMENTS_RULE = '@secretlint/secretlint-rule-filter-comments';

// The AWS rule looks for access key ids (AKIA...) only when asked: in source
// trees they are noisy, but in a memory an access key id is a credential.
const RULE_OPTIONS: Readonly<Record<string, Record<string, unknown>>> = {
  '@secretlint/secretlint-rule-aws': { enableIDScanRule: true },
};

let configMemo: SecretlintConfig | undefined;

// Built once: detection is on the write path. The rules are registered one by
// one rather than through the preset because secretlint 10 ignores
// `disabled` on rules nested in a preset, which we need for the comment filter.
function secretlintConfig(): SecretlintConfig {
  configMemo ??= {
    rules: [
      ...recommendedRules
        .filter((rule) => rule.meta.id !== FILTER_COMMENTS_RULE)
        .map((rule) => ({ id: rule.meta.id, rule, options: RULE_OPTIONS[rule.meta.id] ?? {} })),
      // What the preset leaves out (credential-patterns.ts).
      {
        id: patternRule.meta.id,
        rule: patternRule,
        options: {
          patterns: CREDENTIAL_PATTERNS.map((p) => ({ ...p, patterns: [...p.patterns] })),
        },
      },
    ],
  };
  return configMemo;
}

/**
 * Finds secrets in `text`: cloud keys (AWS access key ids and secret keys,
 * GCP, Google API keys), private keys (PEM), GitHub, GitLab, Slack, npm,
 * OpenAI, Anthropic, Stripe, Linear, SendGrid, Shopify and 1Password tokens,
 * JWTs, Authorization headers and bearer tokens, database connection strings,
 * credentials in URLs (`https://user:pass@`), and passwords, PINs and
 * recovery codes stated in prose.
 *
 * Pure: the text is linted as an in-memory `.txt` source, so no rule reads a
 * file. Results are sorted by position.
 */
export async function detectSecrets(text: string): Promise<SecretFinding[]> {
  if (text.length === 0) return [];
  const result = await lintSource({
    // A made-up relative path with a `.txt` extension: the rules that read
    // files from disk only do so for `.p12` and `.json` sources.
    source: { content: text, filePath: 'memory.txt', ext: '.txt', contentType: 'text' },
    options: { config: secretlintConfig(), maskSecrets: true, noPhysicFilePath: true },
  });
  return result.messages
    .map((m) => ({
      ruleId: m.ruleId,
      messageId: m.messageId,
      range: [m.range[0], m.range[1]] as [number, number],
    }))
    .sort((a, b) => a.range[0] - b.range[0] || a.range[1] - b.range[1]);
}

/**
 * secretlint's process-wide profiler keeps every performance mark it sees and
 * searches that list on each new mark: on the write path that is quadratic
 * (ingest fell from ~100 to 16 memories/s over 2,000 writes) and never frees
 * memory. There is no switch to turn it off, so its `mark` is replaced by a
 * no-op once: no marks, nothing observed, no measures scheduled. (Clearing
 * marks afterwards instead races with measures it schedules and crashes.)
 */
(secretLintProfiler as unknown as { mark: (m: unknown) => void }).mark = () => {};

/** For tests: how many profiler entries secretlint is holding. */
export function secretlintProfilerBacklog(): number {
  const p = secretLintProfiler as unknown as { entries: unknown[]; measures: unknown[] };
  return p.entries.length + p.measures.length;
}
