// The gate's refusal, shared by the gate and its detectors' rules: a stable
// code, a message for people, and details that name rules, kinds and
// numbers, never the refused text (they are returned and audited).
import type { RefusalCode } from '../domain/errors.ts';

/** A refusal: a stable code, a message for people, details safe to return and audit. */
export interface GateRefusal {
  ok: false;
  code: RefusalCode;
  message: string;
  details: Record<string, unknown>;
}

export function refuse(
  code: RefusalCode,
  message: string,
  details: Record<string, unknown> = {},
): GateRefusal {
  return { ok: false, code, message, details };
}
