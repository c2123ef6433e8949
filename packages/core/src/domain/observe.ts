// Observations: what the engine tells an adapter about the work it did, so
// metrics (the server's Prometheus registry) can count it without core
// depending on any metrics library. An observer is a plain function; the
// engine calls it after the fact and never lets it fail or slow a use-case.
import type { DeletionReason } from '../ports/memory-store.ts';
import type { JobName } from '../ports/job-queue.ts';

/** One use-case run through the engine, whatever its outcome. */
export interface UseCaseObservation {
  type: 'use_case';
  /** The registry name (`remember`, `recall`, …). */
  useCase: string;
  durationMs: number;
  outcome: 'ok' | 'error';
  /** The KeepGraphError code of an error (`internal` for anything else). */
  code?: string;
  /** The use-case's result, when it succeeded (read it, never change it). */
  result?: unknown;
}

/**
 * One deletion cascade, whichever use-case or job ran it: forget, expiry,
 * eviction over the cap inside a write, a correction's derived memories…
 * (results do not carry every one: an eviction is not in a write's result).
 */
export interface CascadeObservation {
  type: 'cascade';
  reason: DeletionReason;
  /** Memories the cascade deleted, roots and derived. */
  deletedMemories: number;
}

/** One job run by this process's in-process runner, done for good. */
export interface JobObservation {
  type: 'job';
  queue: JobName;
  outcome: 'completed' | 'failed';
  durationMs: number;
}

export type Observation = UseCaseObservation | CascadeObservation | JobObservation;

/** Receives observations; whatever it throws is dropped. */
export type Observer = (o: Observation) => void;

/**
 * The observer as the engine calls it: an exception it throws is swallowed
 * (a metrics bug must never fail a write that was stored), and no observer
 * is a no-op.
 */
export function safeObserver(observe: Observer | undefined): Observer {
  if (!observe) return () => {};
  return (o) => {
    try {
      observe(o);
    } catch {
      // Dropped on purpose: see above.
    }
  };
}
