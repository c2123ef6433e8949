// The job registry: every job the producers build fits its type's payload
// schema (so a processor never reads a field its producer did not write),
// the schedules come from the policy, and a payload that does not fit is a
// final invalid_input rather than a crash inside a processor.
import { describe, expect, it } from 'vitest';
import { isKeepGraphError } from '@keepgraph/core';
import {
  ALL_OWNERS,
  JOB_TYPES,
  SCHEDULED_JOBS,
  compactJob,
  expireJob,
  jobPayload,
  rederiveJob,
  reembedJob,
  reflectJob,
  scheduledJobs,
  startupJobs,
} from '@keepgraph/core/jobs';
import { defaultPolicy } from '@keepgraph/core/policy';
import { JOB_NAMES, type Job } from '@keepgraph/core/ports';

const T = '2026-12-01T00:00:00.000Z';
const produced: Job[] = [
  rederiveJob(
    'o',
    { id: 'd1', kind: 'summary', tags: ['compaction'], survivingSources: ['a', 'b'] },
    T,
  ),
  reflectJob('o', 'count', 'm1'),
  compactJob('o', T),
  expireJob(T),
  reembedJob('o', 'bge-small-en-v1.5'),
  ...scheduledJobs(T),
  ...startupJobs('bge-small-en-v1.5'),
  ...SCHEDULED_JOBS.map(({ schedule }) => schedule.job(T)),
];

describe('the job registry', () => {
  it('has one type per job name', () => {
    expect(Object.keys(JOB_TYPES).sort()).toEqual([...JOB_NAMES].sort());
  });

  it('parses the payload of every job a producer builds, as the producer wrote it', () => {
    for (const job of produced) {
      const parsed = jobPayload(job.name, job) as Record<string, unknown>;
      for (const [k, v] of Object.entries(job.payload))
        expect(parsed[k], `${job.name}.${k}`).toEqual(v);
    }
    // A BullMQ schedule adds `scheduled: true` to its job's payload.
    for (const { name, schedule } of SCHEDULED_JOBS)
      expect(() =>
        jobPayload(name, {
          ...schedule.job(T),
          payload: { ...schedule.job(T).payload, scheduled: true },
        }),
      ).not.toThrow();
  });

  it('refuses a payload that does not fit with invalid_input', () => {
    const bad = {
      ...rederiveJob('o', { id: 'd', kind: 'fact', tags: [], survivingSources: [] }, T),
      payload: { kind: 'nonsense' },
    };
    const e = (() => {
      try {
        jobPayload('rederive', bad);
      } catch (x) {
        return x;
      }
    })();
    expect(isKeepGraphError(e) && e.code).toBe('invalid_input');
  });

  it('schedules expiry, reflection and compaction at the policy periods; only expiry is a singleton', () => {
    const p = defaultPolicy();
    const every = Object.fromEntries(
      SCHEDULED_JOBS.map(({ name, schedule }) => [name, schedule.everyMs(p)]),
    );
    expect(every).toEqual({
      expire: p.background.expiry.sweepEvery * 1000,
      reflect: p.background.reflection.every * 1000,
      compact: p.background.compaction.every * 1000,
    });
    for (const { schedule } of SCHEDULED_JOBS) expect(schedule.job(T).ownerId).toBe(ALL_OWNERS);
    expect(JOB_NAMES.filter((n) => JOB_TYPES[n].singleton)).toEqual(['expire']);
    expect(JOB_NAMES.filter((n) => JOB_TYPES[n].perOwner).sort()).toEqual([
      'compact',
      'rederive',
      'reembed',
      'reflect',
    ]);
  });
});
