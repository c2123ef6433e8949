// Long loops of work that is awaited but CPU-bound (the write gate's
// detectors resolve at once) never let the event loop reach I/O: a
// 1,000-item batch held every other request until it was done. A loop calls
// this between items to let waiting requests in.
import { setImmediate } from 'node:timers/promises';

/** Resolve after the event loop has had a turn at I/O. */
export function yieldToEventLoop(): Promise<void> {
  return setImmediate();
}
