export {
  BullMqJobQueue,
  DURATION_SAMPLE_SIZE,
  bullJobId,
  type BullMqJobQueueOptions,
  type JobData,
} from './bullmq-job-queue.ts';
