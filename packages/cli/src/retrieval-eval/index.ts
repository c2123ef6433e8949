// The retrieval-evaluation harness (memory-retrieval-eval/v1) as a library,
// so a benchmark can run a peer system through the same dataset parsing,
// results file, checker and scoring as `keepgraph bench recall`. Re-exports only.
export {
  DATASET_FORMAT,
  limitConversations,
  loadDataset,
  parseDataset,
  type Conversation,
  type Dataset,
  type Question,
  type Turn,
} from './dataset.ts';
export { formatResults, writeResults, type ResultLine } from './results.ts';
export { checkResultsFile, MIN_TURN_IDS } from './check.ts';
export {
  formatMetricsTable,
  KS,
  percentile,
  scoreResults,
  type GroupScores,
  type K,
  type RecallMetrics,
} from './score.ts';
export {
  evalOwnerId,
  ingestConversation,
  answerQuestions,
  turnIdsOf,
  type IngestedConversation,
} from './run-eval.ts';
export { consolidateOwner, type ConsolidationSummary } from './consolidate.ts';
