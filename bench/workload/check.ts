// Self-checks for a generated workload (`generate.ts --check`): every record
// is a valid MemoryInput, ids are unique, derivedFrom names an earlier
// stored record of the same owner, and the default policy gate does to each
// labelled record exactly what its label says (all sensitive records, and a
// sample of the rest).
import { MemoryInputSchema, ROLE_DEFAULT_AUTHORITY, type Authority } from '@keepgraph/core';
import { defaultPolicy, evaluateWrite } from '@keepgraph/core/policy';
import type { WorkloadRecord } from './generator.ts';

export interface CheckReport {
  records: number;
  owners: number;
  ownerSizes: { min: number; median: number; max: number };
  byRole: Record<string, number>;
  bySensitiveKind: Record<string, number>;
  byExpectation: Record<string, number>;
  gateChecked: number;
  problems: string[];
}

export class WorkloadChecker {
  private readonly policy = defaultPolicy();
  private records = 0;
  private ownerId: string | null = null;
  private ownerSize = 0;
  private readonly sizes: number[] = [];
  private readonly seenOwners = new Set<string>();
  /** Ids of the current owner that should be stored (derivedFrom may name them). */
  private stored = new Set<string>();
  private all = new Set<string>();
  private readonly byRole: Record<string, number> = {};
  private readonly bySensitiveKind: Record<string, number> = {};
  private readonly byExpectation: Record<string, number> = {};
  private gateChecked = 0;
  readonly problems: string[] = [];

  /** `gateEvery`: run the gate on one plain record in this many (sensitive ones always). */
  constructor(private readonly gateEvery = 50) {}

  private problem(msg: string): void {
    if (this.problems.length < 50) this.problems.push(msg);
  }

  async add(rec: WorkloadRecord): Promise<void> {
    if (rec.seq !== this.records) this.problem(`seq ${rec.seq} at position ${this.records}`);
    this.records++;
    if (rec.ownerId !== this.ownerId) {
      if (this.ownerId !== null) this.sizes.push(this.ownerSize);
      if (this.seenOwners.has(rec.ownerId)) this.problem(`owner ${rec.ownerId} is not contiguous`);
      this.seenOwners.add(rec.ownerId);
      this.ownerId = rec.ownerId;
      this.ownerSize = 0;
      this.stored = new Set();
      this.all = new Set();
    }
    this.ownerSize++;
    this.byRole[rec.role] = (this.byRole[rec.role] ?? 0) + 1;
    this.byExpectation[rec.expect] = (this.byExpectation[rec.expect] ?? 0) + 1;
    if (rec.sensitive)
      this.bySensitiveKind[rec.sensitive] = (this.bySensitiveKind[rec.sensitive] ?? 0) + 1;

    if (this.all.has(rec.id)) this.problem(`duplicate id ${rec.id}`);
    this.all.add(rec.id);
    if (!rec.id.startsWith(`${rec.ownerId}:`)) this.problem(`id ${rec.id} not of its owner`);
    for (const src of rec.input.derivedFrom) {
      if (!this.stored.has(src))
        this.problem(`${rec.id} derives from ${src}: not an earlier stored record`);
    }
    if (rec.reverses && !this.stored.has(rec.reverses))
      this.problem(`${rec.id} reverses unknown ${rec.reverses}`);
    if (rec.expect === 'stored' || rec.expect === 'redacted') this.stored.add(rec.id);

    const parsed = MemoryInputSchema.safeParse(rec.input);
    if (!parsed.success) {
      this.problem(`${rec.id}: not a valid MemoryInput: ${parsed.error.issues[0]?.message}`);
      return;
    }
    if (rec.sensitive || this.records % this.gateEvery === 0) {
      this.gateChecked++;
      const { kind, text, sensitivity, origin, ttlSeconds, derivedFrom } = parsed.data;
      const authority: Authority = parsed.data.authority ?? ROLE_DEFAULT_AUTHORITY.user;
      const derived = derivedFrom.length > 0;
      const gate = { kind, text, authority, sensitivity, origin, ttlSeconds, derived };
      const d = await evaluateWrite(this.policy, gate);
      const got = !d.ok ? d.code : d.redactions.length > 0 ? 'redacted' : 'stored';
      if (got !== rec.expect)
        this.problem(
          `${rec.id} (${rec.role}${rec.sensitive ? `/${rec.sensitive}` : ''}): gate says ${got}, label says ${rec.expect}`,
        );
    }
  }

  report(): CheckReport {
    const sizes = [...this.sizes, ...(this.ownerId !== null ? [this.ownerSize] : [])].sort(
      (a, b) => a - b,
    );
    return {
      records: this.records,
      owners: sizes.length,
      ownerSizes: {
        min: sizes[0] ?? 0,
        median: sizes[Math.floor(sizes.length / 2)] ?? 0,
        max: sizes[sizes.length - 1] ?? 0,
      },
      byRole: this.byRole,
      bySensitiveKind: this.bySensitiveKind,
      byExpectation: this.byExpectation,
      gateChecked: this.gateChecked,
      problems: this.problems,
    };
  }
}
