// What a write triggers (policy.background.reflection): reflection once an
// owner has N more unreflected episodes, at once on negative feedback or
// outcome, and on novelty when the policy turns it on. The jobs go into the
// same store transaction as the write (the outbox).
import type { Memory } from '../domain/record.ts';
import type { Job } from '../ports/job-queue.ts';
import type { EngineDeps } from './deps.ts';
import { compactJob, reflectJob } from '../domain/job-ids.ts';

const NEGATIVE_TAGS = new Set(['negative', 'outcome:negative', 'feedback:negative', 'failure']);
const NEGATIVE_TEXT =
  /\b(?:dislikes?|hates?|complain(?:s|ed)?|unhappy|disappointed|frustrat(?:ed|ing)|angry|upset|negative feedback|(?:did ?n[o']t|does ?n[o']t|do ?n[o']t) like|not happy|rather not|bad experience|never again|went wrong|failed)\b/i;

/** An episode whose outcome or feedback is negative: its lesson should not wait for the count. */
export function isNegativeFeedback(m: Pick<Memory, 'text' | 'tags'>): boolean {
  return m.tags.some((t) => NEGATIVE_TAGS.has(t.toLowerCase())) || NEGATIVE_TEXT.test(m.text);
}

export async function triggeredJobs(
  deps: EngineDeps,
  ownerId: string,
  written: readonly { memory: Memory; embedding: Float32Array | null }[],
): Promise<Job[]> {
  const episodes = written.filter((w) => w.memory.kind === 'episode');
  if (episodes.length === 0) return [];
  const cfg = deps.policy.background.reflection;
  const now = deps.clock.now().toISOString();
  const jobs: Job[] = [];
  for (const { memory, embedding } of episodes) {
    if (cfg.onNegativeFeedback && isNegativeFeedback(memory)) {
      jobs.push(reflectJob(ownerId, 'negative', memory.id));
    } else if (cfg.noveltyBelow !== null && embedding) {
      // Searched before the write commits, so the episode cannot find itself.
      const [nearest] = await deps.store.searchVector(ownerId, embedding, { limit: 1, now });
      if (!nearest || nearest.score < cfg.noveltyBelow)
        jobs.push(reflectJob(ownerId, 'novelty', memory.id));
    }
  }
  // Once the owner has N unreflected episodes, every write asks for the
  // reflection of the backlog that starts at its oldest unreflected episode:
  // one job id while that backlog waits (and the job drains it page by
  // page), a new one once it has been reflected. Counting stops at N.
  const n = cfg.afterEpisodes;
  const before = await deps.store.countUnreflected(ownerId, now, n);
  if (before + episodes.length >= n) {
    const [oldest] = await deps.store.unreflectedEpisodes(ownerId, { now, limit: 1 });
    const anchor = oldest?.id ?? episodes[0]!.memory.id;
    jobs.push(reflectJob(ownerId, 'count', anchor), compactJob(ownerId, anchor));
  }
  return jobs;
}
