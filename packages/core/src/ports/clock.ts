// The Clock port: the engine never reads the system time directly, so tests
// can move time (expiry) and receipts are reproducible.
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to: for tests and replays. */
export class ManualClock implements Clock {
  private t: number;
  constructor(start: Date | string = '2026-01-01T00:00:00.000Z') {
    this.t = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.t);
  }
  advance(ms: number): void {
    this.t += ms;
  }
  set(at: Date | string): void {
    this.t = new Date(at).getTime();
  }
}
