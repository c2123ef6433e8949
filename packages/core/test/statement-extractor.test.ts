import { describe, expect, it } from 'vitest';
import { claimKey, createStatementExtractor, isNegativeFeedback } from '../src/jobs/index.ts';

const extract = (...texts: string[]) =>
  createStatementExtractor().extract({
    ownerId: 'o',
    episodes: texts.map((text, i) => ({ id: `e${i}`, text, observedAt: '2026-01-01T00:00:00Z' })),
  });

const rel = (c: { relations: { subject: { name: string }; type: string; object: { name: string }; reason?: string }[] }) =>
  c.relations.map((r) => `${r.subject.name} ${r.type} ${r.object.name}${r.reason ? ` | ${r.reason}` : ''}`);

describe('the statement extractor', () => {
  it("reads the issue's example: a negated preference with its reason", async () => {
    const [c, ...rest] = await extract(
      "I'd rather not work with finance clients after that last project",
    );
    expect(rest).toEqual([]);
    expect(c).toMatchObject({ kind: 'preference', sourceIds: ['e0'] });
    expect(rel(c!)).toEqual(['user PREFERS_AGAINST finance clients | that last project']);
  });

  it('reads a named third person, an intensifier, and keeps negation from reading as a like', async () => {
    const claims = await extract(
      'Feedback: Alex strongly dislikes finance clients after the last project.',
      "Sam doesn't like early meetings.",
    );
    expect(claims.flatMap(rel)).toEqual([
      'Alex PREFERS_AGAINST finance clients | the last project',
      'Sam PREFERS_AGAINST early meetings',
    ]);
    expect(claims[0]!.confidence).toBeGreaterThan(claims[1]!.confidence);
  });

  it('reads constraints, goals, profile and positive preferences', async () => {
    const claims = await extract(
      "I can't eat peanuts. I want to learn Rust. I live in Berlin. I love hiking in the Alps.",
    );
    expect(claims.map((c) => c.kind).sort()).toEqual(['constraint', 'goal', 'preference', 'profile']);
    expect(claims.flatMap(rel).sort()).toEqual([
      'user HAS_CONSTRAINT eat peanuts',
      'user HAS_GOAL learn rust',
      'user LIVES_IN berlin',
      'user PREFERS hiking in the alps',
    ]);
  });

  it('takes statements, not actions: a search that avoids something states no preference', async () => {
    expect(await extract('Searched for new client leads, avoiding finance companies.')).toEqual([]);
    expect(await extract('Searched remote job boards for web development jobs.')).toEqual([]);
  });

  it('merges one claim stated in several episodes, with every source', async () => {
    const claims = await extract('I hate cold calls.', 'Honestly, I hate cold calls!');
    expect(claims).toHaveLength(1);
    expect(claims[0]!.sourceIds).toEqual(['e0', 'e1']);
  });

  it("reads a third-party text's first person as its author, never the owner", async () => {
    const claims = await createStatementExtractor().extract({
      ownerId: 'o',
      episodes: [
        {
          id: 'page',
          text: "We would rather not stay anywhere but Casa Verde after the noise. Sam dislikes the Grand Palace.",
          observedAt: '2026-01-01T00:00:00Z',
          authority: 'third_party',
          source: 'https://travel-tips.example.net/lisbon',
        },
        {
          id: 'doc',
          text: 'I love cold calls.',
          observedAt: '2026-01-01T00:00:00Z',
          authority: 'third_party',
        },
        { id: 'own', text: 'I love cold calls.', observedAt: '2026-01-01T00:00:00Z' },
      ],
    });
    expect(claims.flatMap(rel).sort()).toEqual([
      'Sam PREFERS_AGAINST grand palace',
      'author of a third-party source PREFERS cold calls',
      'author of travel-tips.example.net PREFERS_AGAINST stay anywhere | the noise',
      'user PREFERS cold calls',
    ]);
    expect(claims.find((c) => c.sourceIds.includes('page') && c.text.startsWith('The author'))?.text).toBe(
      'The author of travel-tips.example.net prefers to avoid stay anywhere, because of the noise.',
    );
  });

  it('gives a claim and its contradiction the same key', () => {
    expect(claimKey('PREFERS', 'user', 'Finance clients')).toBe(
      claimKey('PREFERS_AGAINST', 'user', 'finance  clients'),
    );
    expect(claimKey('HAS_GOAL', 'user', 'x')).not.toBe(claimKey('PREFERS', 'user', 'x'));
  });
});

describe('negative feedback', () => {
  it('is seen in tags or in the words of the episode', () => {
    expect(isNegativeFeedback({ text: 'Went fine.', tags: ['outcome:negative'] })).toBe(true);
    expect(isNegativeFeedback({ text: 'The client complained about the delay.', tags: [] })).toBe(true);
    expect(isNegativeFeedback({ text: 'Booked a table for two.', tags: [] })).toBe(false);
  });
});
