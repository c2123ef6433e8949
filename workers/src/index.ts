export {
  BullMqJobQueue,
  DEFAULT_PRODUCER_TIMEOUT_MS,
  DURATION_SAMPLE_SIZE,
  bullJobId,
  producerConnection,
  type BullMqJobQueueOptions,
  type JobData,
} from './bullmq-job-queue.ts';
export {
  FINAL_ERROR_CODES,
  isFinalJobError,
  startWorkers,
  type RunningWorkers,
  type WorkersOptions,
} from './bullmq-workers.ts';
export { DEFAULT_CLOSE_TIMEOUT_MS, closeWithin, withDeadline } from './deadlines.ts';
export { queueUnavailable, redisLiveness, type RedisLiveness } from './redis-liveness.ts';
export { installSchedules, SCHEDULER_IDS } from './schedules.ts';
export {
  startWorkerProcess,
  type WorkerProcess,
  type WorkerProcessOptions,
} from './worker-process.ts';
