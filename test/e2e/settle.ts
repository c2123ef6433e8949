// Reading an owner's whole memory through the operator's listing, and waiting
// for the background jobs a process runs (reflection, compaction, the
// cascades' rederivations) to be done with it, for the tests that run
// `keepgraph start` with its job runner on, as it ships.
import { setTimeout as sleep } from 'node:timers/promises';
import { operatorCall, type KeepGraphProcess } from './keepgraph-process.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers, read field by field
type Json = any;

/**
 * Every memory `owner` holds (the operator's listing, page by page),
 * superseded versions too unless `superseded` is false.
 */
export async function everyMemory(
  kg: KeepGraphProcess,
  owner: string,
  { superseded = true } = {},
): Promise<Json[]> {
  const out: Json[] = [];
  let after: string | null = null;
  do {
    const q: string = `${superseded ? '&includeSuperseded=true' : ''}${after ? `&after=${encodeURIComponent(after)}` : ''}`;
    const page = await operatorCall(kg, 'GET', `/owners/${owner}/memories?limit=500${q}`);
    out.push(...page.memories);
    after = page.next;
  } while (after !== null);
  return out;
}

/**
 * Until the job runner is idle and `owner`'s memories have stayed the same
 * (and satisfy `until`) for three polls in a row; the memories then. Jobs
 * enqueue jobs (a reflection's facts are compacted), so one idle poll is not
 * the end. A timeout names `what` was awaited, the queues and the log's tail.
 */
export async function settle(
  kg: KeepGraphProcess,
  owner: string,
  what: string,
  opts: { until?: (memories: Json[]) => boolean; timeoutMs?: number; pollMs?: number } = {},
): Promise<Json[]> {
  const { until = () => true, timeoutMs = 60_000, pollMs = 500 } = opts;
  const deadline = Date.now() + timeoutMs;
  let last = '';
  let same = 0;
  for (;;) {
    const queues = await operatorCall(kg, 'GET', '/queues');
    const busy = queues.queues.some((q: Json) => q.waiting > 0 || q.active > 0 || q.delayed > 0);
    const memories = await everyMemory(kg, owner);
    const now = JSON.stringify(memories.map((m) => [m.id, m.supersededBy]).sort());
    same = !busy && now === last && until(memories) ? same + 1 : 0;
    if (same >= 3) return memories;
    last = now;
    if (Date.now() > deadline)
      throw new Error(
        `background jobs did not settle: ${what}\n${JSON.stringify(queues.queues)}\n${kg.log().slice(-4000)}`,
      );
    await sleep(pollMs);
  }
}
