// The corpus tests' one-pass search (find-needles.ts) against the slow
// obvious one: a needle is found wherever it is (the start, the middle, the
// end, split across any two pushes of a stream), never where it is not, and
// never across two streams.
import { describe, expect, it } from 'vitest';
import { findNeedles, needleScanner } from './find-needles.ts';
import { seededRandom } from '@keepgraph/core/testing';

// Needles of different lengths, two sharing a long prefix (one hash bucket),
// one of multi-byte UTF-8.
const NEEDLES = [
  'ghp_Q2xv9Lr0TtYp',
  'github_pat_11AAAA',
  'github_pat_11AAAB',
  'PIN is 482913',
  'Zürich-£€-key',
];
const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);

describe('findNeedles', () => {
  it('finds a needle at the start, in the middle and at the end of a buffer', () => {
    for (const n of NEEDLES) {
      for (const hay of [n + filler(3), filler(3) + n + filler(3), filler(3) + n, n]) {
        expect([...findNeedles(NEEDLES, [Buffer.from(hay)])], hay).toEqual([n]);
      }
    }
  });

  it('finds a needle split across any chunk boundary, in two pushes or byte by byte', () => {
    for (const n of NEEDLES) {
      const hay = Buffer.from(`${filler(1)}${n}${filler(1)}`);
      for (let cut = 0; cut <= hay.length; cut++) {
        const s = needleScanner(NEEDLES).push(hay.subarray(0, cut)).push(hay.subarray(cut));
        expect([...s.found], `${n} cut at ${cut}`).toEqual([n]);
      }
      const bytewise = needleScanner(NEEDLES);
      for (let i = 0; i < hay.length; i++) bytewise.push(hay.subarray(i, i + 1));
      expect([...bytewise.found]).toEqual([n]);
    }
  });

  it('finds nothing where no needle is whole: absent, cut short, or split across two streams', () => {
    const prefixes = NEEDLES.map((n) => n.slice(0, -1)).join(' ');
    expect(findNeedles(NEEDLES, [filler(50), prefixes, '']).size).toBe(0);
    const [a, b] = [NEEDLES[0]!.slice(0, 6), NEEDLES[0]!.slice(6)];
    expect(needleScanner(NEEDLES).push(a).end().push(b).found.size).toBe(0);
    expect(needleScanner(NEEDLES).push(a).push(b).found.size).toBe(1);
  });

  it('agrees with one includes per needle on random text with many near-misses', () => {
    const rnd = seededRandom(7);
    const text = (n: number) =>
      Array.from({ length: n }, () => 'abc'[Math.floor(rnd() * 3)]).join('');
    // A small alphabet: prefixes of needles are everywhere, whole needles some of the time.
    const needles = Array.from({ length: 300 }, () => text(6 + Math.floor(rnd() * 10)));
    for (let round = 0; round < 20; round++) {
      const hay = Buffer.from(text(2000));
      const chunks = [hay.subarray(0, 700), hay.subarray(700, 701), hay.subarray(701)];
      const scanner = needleScanner(needles);
      for (const c of chunks) scanner.push(c);
      const expected = new Set(needles.filter((n) => hay.includes(n)));
      expect(expected.size).toBeGreaterThan(0);
      expect(new Set(scanner.found)).toEqual(expected);
    }
  });
});
