// @keepgraph/extractor-openai: the Extractor port over an OpenAI-compatible chat-completions endpoint.

export type { ExtractedClaim, ExtractionInput, Extractor } from '@keepgraph/core/ports';
export { createOpenAiExtractor, EXTRACTOR_NAME, REPLY_FORMAT_NAME } from './openai-extractor.ts';
export type { OpenAiExtractorOptions } from './openai-extractor.ts';
export {
  EXTRACTION_REJECTION_REASONS,
  ExtractionRejected,
  isExtractionRejected,
  isRetryableStatus,
} from './extraction-rejected.ts';
export type {
  ExtractionRejectedOptions,
  ExtractionRejectionReason,
} from './extraction-rejected.ts';
export {
  EPISODES_CLOSE,
  EPISODES_OPEN,
  encodeEpisodes,
  PROMPT_VERSION,
  promptMessages,
  SYSTEM_PROMPT,
} from './prompt.ts';
export {
  CLAIM_KINDS,
  MAX_CLAIMS,
  replyJsonSchema,
  ReplySchema,
  SOURCE_ID_ENUM_LIMIT,
} from './reply-schema.ts';
export type { ClaimKind, Reply } from './reply-schema.ts';
export { EXTRACTOR_CHOICES, EXTRACTOR_ENV, openAiExtractorFromEnv } from './from-env.ts';
