export {
  BullMqJobQueue,
  DURATION_SAMPLE_SIZE,
  bullJobId,
  type BullMqJobQueueOptions,
  type JobData,
} from './bullmq-job-queue.ts';
export { startWorkers, type RunningWorkers, type WorkersOptions } from './bullmq-workers.ts';
export { installSchedules, SCHEDULER_IDS } from './schedules.ts';
export {
  startWorkerProcess,
  type WorkerProcess,
  type WorkerProcessOptions,
} from './worker-process.ts';
