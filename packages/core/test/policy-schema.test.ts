// The policy file: the shipped default parses, and broken policies are
// refused with `invalid_policy` and a path to the problem.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { isKeepGraphError } from '../src/domain/errors.ts';
import { MEMORY_KINDS } from '../src/domain/record.ts';
import {
  DEFAULT_POLICY_PATH,
  defaultPolicy,
  loadPolicyFile,
  parseDuration,
  parsePolicy,
} from '../src/policy/index.ts';

const defaultYaml = readFileSync(DEFAULT_POLICY_PATH, 'utf8');

/** The default policy with one value changed at `path`, as YAML text. */
function withChange(path: (string | number)[], value: unknown): string {
  const doc = parseDocument(defaultYaml);
  doc.setIn(path, value);
  return doc.toString();
}

function withoutKey(path: (string | number)[]): string {
  const doc = parseDocument(defaultYaml);
  doc.deleteIn(path);
  return doc.toString();
}

/** Runs `fn`, expecting a KeepGraphError; returns its code and issue paths. */
function failure(fn: () => unknown): { code: string; paths: string[] } {
  try {
    fn();
  } catch (e) {
    if (!isKeepGraphError(e)) throw e;
    const issues = (e.details?.issues ?? []) as { path: string }[];
    return { code: e.code, paths: issues.map((i) => i.path) };
  }
  throw new Error('expected a KeepGraphError');
}

describe('default policy', () => {
  it('parses and covers every memory kind', () => {
    const policy = defaultPolicy();
    expect(Object.keys(policy.kinds).sort()).toEqual([...MEMORY_KINDS].sort());
    expect(policy.kinds.episode.ttl.default).toBe(30 * 86_400);
    expect(policy.caps.sessionBuffer).toEqual({
      maxExchanges: 20,
      ttl: 86_400,
      messageRoles: {
        system: ['operator'],
        tool: ['operator', 'tool', 'agent'],
        user: ['operator', 'user'],
        assistant: ['operator', 'user'],
      },
    });
    expect(policy.personalData.actions).toEqual({
      email: 'redact',
      phone: 'redact',
      payment_card: 'refuse',
      iban: 'refuse',
    });
  });

  it('is loaded from the shipped file and handed out as a copy', () => {
    const a = defaultPolicy();
    a.kinds.fact.keep = false;
    expect(defaultPolicy().kinds.fact.keep).toBe(true);
    expect(loadPolicyFile(DEFAULT_POLICY_PATH)).toEqual(defaultPolicy());
  });
});

describe('session message roles', () => {
  const safe = {
    system: ['operator'],
    tool: ['operator', 'tool', 'agent'],
    user: ['operator', 'user'],
    assistant: ['operator', 'user'],
  };

  it('a policy written before user and assistant were listed keeps loading, with tool and agent keys kept off them', () => {
    const old = parsePolicy(
      withChange(['caps', 'sessionBuffer', 'messageRoles'], {
        system: ['operator'],
        tool: ['operator', 'tool', 'agent'],
      }),
    );
    expect(old.caps.sessionBuffer.messageRoles).toEqual(safe);
    const none = parsePolicy(withoutKey(['caps', 'sessionBuffer', 'messageRoles']));
    expect(none.caps.sessionBuffer.messageRoles).toEqual(safe);
  });

  it('a policy may open user messages to another role, and refuses an unknown one', () => {
    const open = parsePolicy(
      withChange(['caps', 'sessionBuffer', 'messageRoles', 'user'], ['operator', 'user', 'agent']),
    );
    expect(open.caps.sessionBuffer.messageRoles.user).toEqual(['operator', 'user', 'agent']);
    const f = failure(() =>
      parsePolicy(withChange(['caps', 'sessionBuffer', 'messageRoles', 'assistant'], ['robot'])),
    );
    expect(f.code).toBe('invalid_policy');
    expect(f.paths).toContain('caps.sessionBuffer.messageRoles.assistant.0');
  });
});

describe('invalid policies', () => {
  it('refuses min > max', () => {
    const f = failure(() => parsePolicy(withChange(['kinds', 'fact', 'ttl', 'min'], '4000d')));
    expect(f.code).toBe('invalid_policy');
    expect(f.paths).toContain('kinds.fact.ttl');
  });

  it('refuses a default outside its bounds after merging an authority override', () => {
    const f = failure(() =>
      parsePolicy(
        withChange(['kinds', 'episode', 'ttlByAuthority', 'third_party', 'default'], '60d'),
      ),
    );
    expect(f.code).toBe('invalid_policy');
    expect(f.paths).toContain('kinds.episode.ttlByAuthority.third_party');
  });

  it('refuses an unknown kind', () => {
    const f = failure(() =>
      parsePolicy(
        withChange(['kinds', 'gossip'], {
          keep: true,
          why: 'x',
          correction: 'x',
          ttl: { default: '1d', min: '1d', max: '1d' },
        }),
      ),
    );
    expect(f.code).toBe('invalid_policy');
  });

  it('refuses a policy that leaves a kind out', () => {
    const f = failure(() => parsePolicy(withoutKey(['kinds', 'kv'])));
    expect(f.code).toBe('invalid_policy');
    expect(f.paths).toContain('kinds.kv');
  });

  it.each(['30 days', 'never', '0d', '-1h', '1y', '99999d'])('refuses the duration %s', (bad) => {
    const f = failure(() => parsePolicy(withChange(['kinds', 'goal', 'ttl', 'default'], bad)));
    expect(f.code).toBe('invalid_policy');
    expect(f.paths).toContain('kinds.goal.ttl.default');
  });

  it('refuses maxChars above the record ceiling and minChars above maxChars', () => {
    expect(failure(() => parsePolicy(withChange(['text', 'maxChars'], 1_000_000))).code).toBe(
      'invalid_policy',
    );
    expect(failure(() => parsePolicy(withChange(['text', 'minChars'], 9000))).paths).toContain(
      'text.minChars',
    );
  });

  it('refuses switching off the secret and high-sensitivity refusals', () => {
    expect(failure(() => parsePolicy(withChange(['refuse', 'secrets'], false))).code).toBe(
      'invalid_policy',
    );
    expect(failure(() => parsePolicy(withChange(['refuse', 'highSensitivity'], false))).code).toBe(
      'invalid_policy',
    );
  });

  it('refuses dropping the derivedFrom requirement of derived kinds and inferred claims', () => {
    expect(
      failure(() => parsePolicy(withChange(['sources', 'requireDerivedFrom', 'kinds'], ['rule'])))
        .paths,
    ).toContain('sources.requireDerivedFrom.kinds');
    expect(
      failure(() => parsePolicy(withChange(['sources', 'requireDerivedFrom', 'authorities'], [])))
        .paths,
    ).toContain('sources.requireDerivedFrom.authorities');
  });

  it('refuses bad host patterns, bad regexes, bad regions and unknown keys', () => {
    expect(
      failure(() => parsePolicy(withChange(['sources', 'hosts', 'deny'], ['http://x.com/']))).code,
    ).toBe('invalid_policy');
    expect(
      failure(() => parsePolicy(withChange(['refuse', 'instructionPatterns'], ['(unclosed']))).code,
    ).toBe('invalid_policy');
    expect(failure(() => parsePolicy(withChange(['personalData', 'phoneRegion'], 'XX'))).code).toBe(
      'invalid_policy',
    );
    expect(failure(() => parsePolicy(withChange(['caps', 'maxMemoriesPerOnwer'], 5))).code).toBe(
      'invalid_policy',
    );
  });

  it('refuses text that is not YAML, and a missing file', () => {
    expect(failure(() => parsePolicy('kinds: [unclosed')).code).toBe('invalid_policy');
    expect(failure(() => loadPolicyFile('/nonexistent/policy.yaml')).code).toBe('invalid_policy');
  });
});

describe('parseDuration', () => {
  it('reads seconds, minutes, hours, days and weeks', () => {
    expect(parseDuration('3600s')).toBe(3600);
    expect(parseDuration('90m')).toBe(5400);
    expect(parseDuration('12h')).toBe(43_200);
    expect(parseDuration('30d')).toBe(2_592_000);
    expect(parseDuration('2w')).toBe(1_209_600);
  });

  it('throws invalid_input on anything else', () => {
    expect(failure(() => parseDuration('never')).code).toBe('invalid_input');
    expect(failure(() => parseDuration('0s')).code).toBe('invalid_input');
  });
});

describe('the background section', () => {
  it('parses with durations in seconds, and defaults when a policy leaves it out', () => {
    expect(defaultPolicy().background).toEqual({
      reflection: {
        afterEpisodes: 10,
        onNegativeFeedback: true,
        noveltyBelow: null,
        every: 3600,
        groupSimilarity: 0.5,
        contextWindow: 10,
        contextKeys: true,
        turnContext: false,
        sentenceKeys: true,
        maxEpisodes: 200,
      },
      compaction: {
        similarity: 0.9,
        wordOverlap: 0.5,
        minCluster: 3,
        scanLimit: 1000,
        every: 3600,
      },
      expiry: { sweepEvery: 5 },
    });
    expect(parsePolicy(withoutKey(['background'])).background).toEqual(defaultPolicy().background);
    expect(
      parsePolicy(withoutKey(['background', 'compaction'])).background.compaction.similarity,
    ).toBe(0.9);
  });

  it('refuses values out of range with the path to them', () => {
    for (const [path, value] of [
      [['background', 'reflection', 'afterEpisodes'], 0],
      [['background', 'compaction', 'similarity'], 1.5],
      [['background', 'compaction', 'minCluster'], 1],
      [['background', 'compaction', 'wordOverlap'], 2],
      [['background', 'reflection', 'contextWindow'], 0],
      [['background', 'expiry', 'sweepEvery'], 'soon'],
    ] as const) {
      let err: unknown;
      try {
        parsePolicy(withChange([...path], value));
      } catch (e) {
        err = e;
      }
      expect(isKeepGraphError(err) && err.code).toBe('invalid_policy');
      expect(String((err as Error).message)).toContain(path.join('.'));
    }
  });
});
