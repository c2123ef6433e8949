// The audit hash chain detects edits, gaps and re-links, independent of any store.
import { describe, expect, it } from 'vitest';
import {
  GENESIS_HASH,
  sealAuditEvent,
  verifyAuditChain,
  type AuditEvent,
  type AuditEventInput,
} from '../src/domain/audit.ts';

function chain(n: number): AuditEvent[] {
  const out: AuditEvent[] = [];
  let prev = GENESIS_HASH;
  for (let i = 1; i <= n; i++) {
    const input: AuditEventInput = {
      type: 'write',
      at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      ownerId: 'o1',
      actor: 'a',
      role: 'user',
      memoryIds: [`m${i}`],
      contentHashes: ['h'],
      reason: null,
      details: { b: 1, a: [2, { z: 1, y: 2 }] },
    };
    const e = sealAuditEvent(input, i, prev);
    prev = e.hash;
    out.push(e);
  }
  return out;
}

describe('audit chain', () => {
  it('verifies an intact chain', () => {
    expect(verifyAuditChain(chain(5))).toEqual({ ok: true, checked: 5 });
  });

  it('is independent of key order in details', () => {
    const [e] = chain(1);
    const reordered = { ...e!, details: { a: [2, { y: 2, z: 1 }], b: 1 } };
    expect(verifyAuditChain([reordered]).ok).toBe(true);
  });

  it('detects an edited field', () => {
    const events = chain(5);
    events[2] = { ...events[2]!, memoryIds: ['other'] };
    expect(verifyAuditChain(events)).toMatchObject({
      ok: false,
      brokenAt: 3,
      problem: 'hash_mismatch',
    });
  });

  it('detects a removed event', () => {
    const events = chain(5);
    events.splice(2, 1);
    expect(verifyAuditChain(events)).toMatchObject({ ok: false, brokenAt: 3, problem: 'gap' });
  });

  it('detects a resealed event whose link no longer matches', () => {
    const events = chain(3);
    const { seq, prevHash: _p, hash: _h, ...input } = events[1]!;
    events[1] = sealAuditEvent({ ...input, reason: 'edited' }, seq, GENESIS_HASH);
    expect(verifyAuditChain(events)).toMatchObject({
      ok: false,
      brokenAt: 2,
      problem: 'broken_link',
    });
  });
});
