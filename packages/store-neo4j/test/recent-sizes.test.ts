// The counts a query read a moment ago: served while fresh, never an empty
// owner (a write since may have filled it), and bounded in owners.
import { describe, expect, it } from 'vitest';
import { RecentSizes, SIZES_FRESH_MS } from '../src/recent-sizes.ts';

describe('RecentSizes', () => {
  it('serves counts while they are fresh, then asks again', () => {
    let now = 0;
    const sizes = new RecentSizes(() => now);
    expect(sizes.fresh('a')).toBeNull();
    sizes.note('a', { owner: 5, total: 9 });
    now = SIZES_FRESH_MS;
    expect(sizes.fresh('a')).toEqual({ owner: 5, total: 9 });
    expect(sizes.fresh('b')).toBeNull();
    now = SIZES_FRESH_MS + 1;
    expect(sizes.fresh('a')).toBeNull();
  });

  it('never serves an owner count of 0', () => {
    const sizes = new RecentSizes(() => 0);
    sizes.note('a', { owner: 0, total: 9 });
    expect(sizes.fresh('a')).toBeNull();
  });

  it('forgets the least recently noted owner past 1,024', () => {
    const sizes = new RecentSizes(() => 0);
    for (let i = 0; i <= 1024; i++) sizes.note(`o${i}`, { owner: 1, total: 1 });
    expect(sizes.fresh('o0')).toBeNull();
    expect(sizes.fresh('o1')).not.toBeNull();
    expect(sizes.fresh('o1024')).not.toBeNull();
  });
});
