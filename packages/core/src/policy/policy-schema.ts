// The policy file's zod schema (policy-file.ts reads and parses files).
// The policy is loaded before anything is stored (invariant 4) and states, per
// memory kind, what is kept, why, how it is corrected and when it expires, and
// what the gate refuses. `policy/default.yaml` is the documented example.
import { isSupportedCountry } from 'libphonenumber-js';
import { z } from 'zod';
import {
  AUTHORITIES,
  DERIVED_KINDS,
  MAX_TEXT_CHARS,
  MEMORY_KINDS,
  ROLES,
  SOURCE_KINDS,
} from '../domain/record.ts';
import type { Authority, MemoryKind, MessageRole, Role } from '../domain/record.ts';
import { isDuration, parseDuration } from './duration.ts';

/** The personal-data kinds the gate can find. */
export const PERSONAL_DATA_KINDS = ['email', 'phone', 'payment_card', 'iban'] as const;
export type PersonalDataKind = (typeof PERSONAL_DATA_KINDS)[number];

/** What the gate does with a personal-data finding. */
export const PERSONAL_DATA_ACTIONS = ['refuse', 'redact', 'allow'] as const;
export type PersonalDataAction = (typeof PERSONAL_DATA_ACTIONS)[number];

/**
 * When a claim of a given authority is accepted: `always`; `with_source` when
 * its origin names a source (`origin.source`) or a tool call (`origin.tool`)
 * it can be traced back to; `never`.
 */
export const AUTHORITY_ACCEPTANCE = ['always', 'with_source', 'never'] as const;
export type AuthorityAcceptance = (typeof AUTHORITY_ACCEPTANCE)[number];

const duration = z
  .string()
  .refine(isDuration, {
    error:
      'must be a duration such as 90m, 12h, 30d or 3600s (at most 36500d; every memory expires, there is no "never")',
  })
  .transform(parseDuration);

const text = z.string().trim().min(1);

/** TTL bounds in seconds once parsed (the file writes durations). */
const ttlSchema = z.strictObject({ default: duration, min: duration, max: duration });
export type TtlBounds = z.output<typeof ttlSchema>;

const ttlOverrideSchema = ttlSchema.partial();

const kindRuleSchema = z.strictObject(
  {
    keep: z.boolean(),
    why: text,
    correction: text,
    ttl: ttlSchema,
    /** Partial overrides merged over `ttl` for claims of that authority. */
    ttlByAuthority: z.partialRecord(z.enum(AUTHORITIES), ttlOverrideSchema).default({}),
  },
  {
    error: (issue) =>
      issue.input === undefined
        ? 'missing: the policy must give a rule for every memory kind'
        : undefined,
  },
);
export type KindRule = z.output<typeof kindRuleSchema>;

// Built from MEMORY_KINDS so that adding a kind makes every policy file that
// omits it invalid, instead of silently keeping it under no rule.
const kindsSchema = z.strictObject(
  Object.fromEntries(MEMORY_KINDS.map((k) => [k, kindRuleSchema])) as Record<
    MemoryKind,
    typeof kindRuleSchema
  >,
);

// `example.com` or `*.example.com` (any subdomain, not the apex itself).
const hostPattern = z
  .string()
  .trim()
  .toLowerCase()
  .regex(
    /^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*$/,
    'must be a host such as example.com or *.example.com',
  );

const regexSource = z
  .string()
  .min(1)
  .refine(
    (s) => {
      try {
        new RegExp(s, 'iu');
        return true;
      } catch {
        return false;
      }
    },
    { error: 'must be a valid regular expression (matched case-insensitively)' },
  );

const similarity = z.number().min(-1).max(1);

/**
 * Background consolidation: when reflection and compaction run, and how often
 * the expiry sweep ticks. Every field has a default, so policies written
 * before this section existed stay valid.
 */
const backgroundSchema = z.strictObject({
  reflection: z
    .strictObject({
      /** Reflect an owner once this many episodes are unreflected. */
      afterEpisodes: z.number().int().positive().default(10),
      /** Reflect at once on an episode whose outcome or feedback is negative. */
      onNegativeFeedback: z.boolean().default(true),
      /**
       * Reflect at once on an episode whose nearest neighbour among the
       * owner's memories is less similar than this (cosine); null is off,
       * since it costs a vector search per episode written.
       */
      noveltyBelow: similarity.nullable().default(null),
      /** Reflect every owner with unreflected episodes this often (a repeatable job). */
      every: duration.default(3600),
      /** Episodes at least this similar are linked when grouping them for the extractor. */
      groupSimilarity: similarity.default(0.5),
      /**
       * Episodes are grouped within passages of at most this many
       * consecutive episodes of one session: related turns close together.
       */
      contextWindow: z.number().int().min(1).max(200).default(10),
      /**
       * Write each group of two or more episodes as a context summary, one
       * more key to them (jobs/context-keys.ts).
       */
      contextKeys: z.boolean().default(true),
      /**
       * Embed each episode again after the short turn before it in its
       * session and search it by that vector (services/turn-context.ts). Off by
       * default: with the default model it ranks worse on locomo-dev at R@5
       * (longmemeval-dev not measured); with e5-small-v2 and contextKeys off it ranks better on
       * conversations between people and worse on a user with an
       * assistant (bench/README.md, nineteenth session).
       */
      turnContext: z.boolean().default(false),
      /**
       * Write the statements a long turn makes about its speaker as keys to
       * it (jobs/sentence-keys.ts).
       */
      sentenceKeys: z.boolean().default(true),
      /** At most this many episodes per reflection run (the oldest first). */
      maxEpisodes: z.number().int().positive().max(5000).default(200),
    })
    .prefault({}),
  compaction: z
    .strictObject({
      /** Memories at least this similar (cosine) and sharing wordOverlap of their words are near-duplicates. */
      similarity: similarity.default(0.9),
      /**
       * The share of content words two memories must share (Jaccard) to be
       * near-duplicates: on small sentence models, different statements on
       * one topic reach the cosine threshold alone (bench/compaction-pairs.ts).
       */
      wordOverlap: similarity.default(0.5),
      /** A cluster needs this many members to become a summary. */
      minCluster: z.number().int().min(2).default(3),
      /** The most recent memories examined per run. */
      scanLimit: z.number().int().positive().max(20_000).default(1000),
      every: duration.default(3600),
    })
    .prefault({}),
  expiry: z
    .strictObject({
      /** How often the expiry job runs; a memory is purged at most this long after it expires. */
      sweepEvery: duration.default(5),
    })
    .prefault({}),
});
export type BackgroundPolicy = z.output<typeof backgroundSchema>;

/**
 * Fair share (invariant 13): how much one request may make the server do.
 * Every read that grows with the data is cut at these, and the cut is said
 * (`truncated`), so no caller can make one answer, or one cascade, as big
 * as the owner's data. Defaults apply to policies written before this
 * section existed.
 */
const limitsSchema = z.strictObject({
  /**
   * The most memories one memory may name in derivedFrom. Reflection and
   * compaction write within it; a write over it is refused
   * (refused_too_many_sources), and a re-derivation reads at most this many
   * survivors.
   */
  derivedFrom: z.number().int().min(2).max(10_000).default(256),
  /**
   * The most memories one graph answer holds: a lineage (each of a why's
   * lineages share this budget), a memory's neighbours. A graph cut here
   * says `truncated: true`.
   */
  graphNodes: z.number().int().min(10).max(10_000).default(200),
  /** The most calls one MCP JSON-RPC batch may hold; each call counts against the rate limit. */
  mcpBatch: z.number().int().min(1).max(1000).default(10),
  /** The largest answer body, in bytes: over it, 413 response_too_large instead of the answer. */
  responseBytes: z
    .number()
    .int()
    .min(64 * 1024)
    .default(16 * 1024 * 1024),
});
export type LimitsPolicy = z.output<typeof limitsSchema>;

/** Who may append messages in each message role when the policy says nothing. */
const DEFAULT_MESSAGE_ROLES: Record<MessageRole, Role[]> = {
  system: ['operator'],
  tool: ['operator', 'tool', 'agent'],
  user: ['operator', 'user'],
  assistant: ['operator', 'user'],
};

/** The policy as parsed: durations are seconds, everything else as written. */
export const PolicySchema = z
  .strictObject({
    version: z.literal(1),
    kinds: kindsSchema,
    caps: z.strictObject({
      maxMemoriesPerOwner: z.number().int().positive(),
      sessionBuffer: z.strictObject({
        maxExchanges: z.number().int().positive().max(10_000),
        ttl: duration,
        // Which caller roles may append messages in each message role. The
        // buffer hands a message back in its role: "system" is read as an
        // instruction, "user" as the user's own words and "assistant" as
        // what the assistant already said or promised. A tool's output or an
        // agent's relay written in those roles would be taken for them, so
        // tool and agent keys write "tool" messages only unless a policy
        // says otherwise. user and assistant have defaults of their own so
        // that policies written before they existed keep loading.
        messageRoles: z
          .strictObject({
            system: z.array(z.enum(ROLES)),
            tool: z.array(z.enum(ROLES)),
            user: z.array(z.enum(ROLES)).default(() => [...DEFAULT_MESSAGE_ROLES.user]),
            assistant: z.array(z.enum(ROLES)).default(() => [...DEFAULT_MESSAGE_ROLES.assistant]),
          })
          .default(() => structuredClone(DEFAULT_MESSAGE_ROLES)),
      }),
    }),
    text: z.strictObject({
      minChars: z.number().int().nonnegative(),
      maxChars: z
        .number()
        .int()
        .positive()
        .max(MAX_TEXT_CHARS, `must be at most ${MAX_TEXT_CHARS} (MAX_TEXT_CHARS)`),
      minCharsExemptKinds: z.array(z.enum(MEMORY_KINDS)).default([]),
    }),
    refuse: z.strictObject({
      // Invariant 4: the gate always refuses secrets and high sensitivity. The
      // file states it so that readers see it; it cannot switch it off.
      secrets: z.literal(true, { error: 'must be true: secrets are always refused (invariant 4)' }),
      highSensitivity: z.literal(true, {
        error: 'must be true: high sensitivity is always refused (invariant 4)',
      }),
      servicePhrases: z.array(z.string().trim().min(1)).default([]),
      instructionPatterns: z.array(regexSource).default([]),
    }),
    personalData: z.strictObject({
      actions: z.strictObject(
        Object.fromEntries(
          PERSONAL_DATA_KINDS.map((k) => [k, z.enum(PERSONAL_DATA_ACTIONS)]),
        ) as Record<PersonalDataKind, z.ZodEnum<{ [A in PersonalDataAction]: A }>>,
      ),
      phoneRegion: z
        .string()
        .trim()
        .toUpperCase()
        // `: boolean`, not the guard's CountryCode: the policy's type stays a
        // plain string, so core's public types (which the client package
        // ships) do not reach into libphonenumber's.
        .refine((c): boolean => isSupportedCountry(c), {
          error: 'must be an ISO 3166-1 alpha-2 country code, e.g. US',
        })
        .nullable()
        .default(null),
    }),
    sources: z.strictObject({
      acceptKinds: z.array(z.enum(SOURCE_KINDS)),
      hosts: z.strictObject({
        allow: z.array(hostPattern).default([]),
        deny: z.array(hostPattern).default([]),
      }),
      authorities: z.strictObject(
        Object.fromEntries(AUTHORITIES.map((a) => [a, z.enum(AUTHORITY_ACCEPTANCE)])) as Record<
          Authority,
          z.ZodEnum<{ [A in AuthorityAcceptance]: A }>
        >,
      ),
      /**
       * Kinds and authorities that must name the memories they derive from;
       * at least DERIVED_KINDS and agent_inferred.
       */
      requireDerivedFrom: z
        .strictObject({
          kinds: z.array(z.enum(MEMORY_KINDS)).default([...DERIVED_KINDS]),
          authorities: z.array(z.enum(AUTHORITIES)).default(['agent_inferred']),
        })
        .default({ kinds: [...DERIVED_KINDS], authorities: ['agent_inferred'] }),
    }),
    background: backgroundSchema.prefault({}),
    limits: limitsSchema.prefault({}),
  })
  .superRefine((p, ctx) => {
    for (const kind of MEMORY_KINDS) {
      const rule = p.kinds[kind];
      checkTtlOrder(rule.ttl, ['kinds', kind, 'ttl'], ctx);
      for (const authority of AUTHORITIES) {
        const over = rule.ttlByAuthority[authority];
        if (over)
          checkTtlOrder(
            { ...rule.ttl, ...over },
            ['kinds', kind, 'ttlByAuthority', authority],
            ctx,
          );
      }
    }
    // Invariant 2: derived kinds and inferred claims name their sources. A
    // policy may require it of more, not of fewer.
    const required = p.sources.requireDerivedFrom;
    for (const kind of DERIVED_KINDS) {
      if (!required.kinds.includes(kind)) {
        ctx.addIssue({
          code: 'custom',
          path: ['sources', 'requireDerivedFrom', 'kinds'],
          message: `must include ${kind}: derived kinds always name their sources`,
        });
      }
    }
    if (!required.authorities.includes('agent_inferred')) {
      ctx.addIssue({
        code: 'custom',
        path: ['sources', 'requireDerivedFrom', 'authorities'],
        message: 'must include agent_inferred: inferred claims always name their sources',
      });
    }
    if (p.background.compaction.minCluster > p.limits.derivedFrom) {
      ctx.addIssue({
        code: 'custom',
        path: ['background', 'compaction', 'minCluster'],
        message: 'must not exceed limits.derivedFrom: a summary names every member of its cluster',
      });
    }
    if (p.background.reflection.contextWindow > p.limits.derivedFrom) {
      ctx.addIssue({
        code: 'custom',
        path: ['background', 'reflection', 'contextWindow'],
        message:
          "must not exceed limits.derivedFrom: a context summary names its passage's episodes",
      });
    }
    if (p.text.minChars > p.text.maxChars) {
      ctx.addIssue({
        code: 'custom',
        path: ['text', 'minChars'],
        message: 'must not exceed text.maxChars',
      });
    }
  });

function checkTtlOrder(t: TtlBounds, path: (string | number)[], ctx: z.RefinementCtx): void {
  if (t.min > t.default || t.default > t.max) {
    ctx.addIssue({
      code: 'custom',
      path,
      message: `must satisfy min <= default <= max (got min ${t.min}s, default ${t.default}s, max ${t.max}s)`,
    });
  }
}

/** A parsed, validated policy. Plain data: TTLs in seconds, patterns as strings. */
export type Policy = z.output<typeof PolicySchema>;
