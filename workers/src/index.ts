export {
  BullMqJobQueue,
  bullJobId,
  type BullMqJobQueueOptions,
  type JobData,
} from './bullmq-job-queue.ts';
