// The real Embedder: a local quantised BERT-family ONNX model run by
// transformers.js on onnxruntime-node, loaded from disk only (never a hub),
// in the process's model thread (model-host.ts), off the event loop.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { KeepGraphError } from '@keepgraph/core';
import { type EmbedPurpose, type Embedder } from '@keepgraph/core/ports';
import { embedInWorker, type WorkerModelSpec } from './model-host.ts';
import { resolveModelsDir } from './models-dir.ts';
import { DEFAULT_MODEL_ID, TRANSFORMERS_MODEL_IDS, type TransformersModelId } from './model-ids.ts';

interface ModelSpec {
  dimensions: number;
  /** How token vectors become one sentence vector, as each model was trained. */
  pooling: 'mean' | 'cls';
  /** Longest input in tokens, [CLS] and [SEP] included. */
  maxTokens: number;
  /** Prepended to queries (asymmetric retrieval instruction). */
  queryPrefix: string;
  /** Prepended to what is stored, for models trained with a prefix on both sides. */
  documentPrefix: string;
}

const MODEL_SPECS: Record<TransformersModelId, ModelSpec> = {
  // sentence-transformers/all-MiniLM-L6-v2: mean pooling + normalise; its
  // sentence_bert_config sets max_seq_length 256 (the tokenizer allows 512,
  // but the model was trained on 128-token inputs, so go no further than ST does).
  'all-minilm-l6-v2-q': {
    dimensions: 384,
    pooling: 'mean',
    maxTokens: 256,
    queryPrefix: '',
    documentPrefix: '',
  },
  // BAAI/bge-small-en-v1.5: CLS pooling + normalise, 512 tokens; the model card's
  // instruction for short queries retrieving passages (documents get none).
  'bge-small-en-v1.5-q': {
    dimensions: 384,
    pooling: 'cls',
    maxTokens: 512,
    queryPrefix: 'Represent this sentence for searching relevant passages: ',
    documentPrefix: '',
  },
  // intfloat/e5-small-v2: mean pooling + normalise, 512 tokens; trained with
  // "query: " and "passage: " on either side, and its card says the vectors
  // degrade without them.
  'e5-small-v2-q': {
    dimensions: 384,
    pooling: 'mean',
    maxTokens: 512,
    queryPrefix: 'query: ',
    documentPrefix: 'passage: ',
  },
};

/** Options for {@link createTransformersEmbedder}. */
export interface TransformersEmbedderOptions {
  /** Which installed model to load; defaults to {@link DEFAULT_MODEL_ID}. */
  modelId?: TransformersModelId;
  /** Folder holding `<modelId>/`; defaults to {@link resolveModelsDir}. */
  modelsDir?: string;
  /** How many texts are in flight on the ONNX session at once (default 32). */
  batchSize?: number;
  /**
   * Load the model on the first `embed` rather than now (the files are still
   * checked now). For one-shot commands that may embed nothing; a server
   * loads eagerly so its first request does not pay for it.
   */
  lazy?: boolean;
  /**
   * ONNX Runtime's intra-op threads for one inference; ONNX Runtime's own
   * default (one per core) when not given. bench/embed-threads.ts measures
   * what it changes.
   */
  threads?: number;
  /**
   * Intra-op threads of the session that embeds a one-text query (default
   * 1). A query is a few tokens: a second thread saves it little on an idle
   * machine, and in a recall it fights the searches that run meanwhile on
   * the main thread for the cores (bench/README, tenth session). Same
   * model, same vectors bit for bit; only batches use `threads`.
   */
  queryThreads?: number;
  /** How many recent one-text queries keep their vector (default 1024; 0: none). */
  queryCacheSize?: number;
}

/**
 * Loads a local embedding model (see scripts/setup-models.sh) and returns an
 * {@link Embedder} over it. Throws, naming the setup script, when the model
 * files are missing.
 *
 * Each text is run through the model on its own, `batchSize` at a time, rather
 * than as one padded batch tensor: these int8 models quantise activations
 * dynamically with one scale per tensor, so in a padded batch a text's vector
 * depends on its batch-mates (up to ~3e-2 per component here). One run per
 * text keeps a stored embedding reproducible, and on CPU it was no slower.
 */
export async function createTransformersEmbedder(
  opts: TransformersEmbedderOptions = {},
): Promise<Embedder> {
  const modelId = opts.modelId ?? DEFAULT_MODEL_ID;
  // Looked up defensively: callers reading ids from config may bypass the type.
  const spec = Object.hasOwn(MODEL_SPECS, modelId) ? MODEL_SPECS[modelId] : undefined;
  if (!spec)
    throw new Error(
      `Unknown embedding model '${String(modelId)}'; known: ${TRANSFORMERS_MODEL_IDS.join(', ')}`,
    );
  const modelsDir = opts.modelsDir ?? resolveModelsDir();
  const batchSize = opts.batchSize ?? 32;
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new Error(`batchSize must be a positive integer, got ${batchSize}`);
  for (const key of ['threads', 'queryThreads'] as const) {
    const n = opts[key];
    if (n !== undefined && (!Number.isInteger(n) || n < 1))
      throw new Error(`${key} must be a positive integer, got ${n}`);
  }
  if (
    opts.queryCacheSize !== undefined &&
    (!Number.isInteger(opts.queryCacheSize) || opts.queryCacheSize < 0)
  )
    throw new Error(`queryCacheSize must be a whole number, got ${opts.queryCacheSize}`);

  const required = [
    'config.json',
    'tokenizer.json',
    'tokenizer_config.json',
    join('onnx', 'model_quantized.onnx'),
  ];
  const missing = required.filter((f) => !existsSync(join(modelsDir, modelId, f)));
  if (missing.length > 0) {
    throw new Error(
      `Embedding model '${modelId}' is not installed in ${modelsDir} (missing ${missing.join(', ')}). ` +
        'Run `keepgraph models fetch` (in a checkout: `bash scripts/setup-models.sh`); KEEPGRAPH_MODELS_DIR names another folder.',
    );
  }
  const session = (threads: number | undefined): WorkerModelSpec => ({
    key: JSON.stringify([modelsDir, modelId, threads ?? null]),
    modelsDir,
    modelId,
    threads,
    pooling: spec.pooling,
    maxTokens: spec.maxTokens,
    dimensions: spec.dimensions,
  });
  const batches = session(opts.threads);
  const oneQuery = session(opts.queryThreads ?? 1);
  const run = (worker: WorkerModelSpec, texts: string[]): Promise<Float32Array[]> =>
    embedInWorker(worker, texts).catch((e: unknown) => {
      const err = new KeepGraphError(
        'embedder_unavailable',
        `could not run the embedding model ${modelId}: ${e instanceof Error ? e.message : String(e)}`,
      );
      (err as Error).cause = e;
      throw err;
    });
  // Zero texts loads the model; a failed load is tried again on the next embed.
  if (!opts.lazy) await Promise.all([run(batches, []), run(oneQuery, [])]);

  // Agents ask the same questions again (a context fetch each turn, a
  // retried call): a repeated query costs a map look-up, not an inference.
  // The vector is the model's (one text per run), so the cache changes no
  // answer; copies go out, so a caller cannot change what is cached.
  const cached = new Map<string, Float32Array>();
  const cacheSize = opts.queryCacheSize ?? 1024;

  return {
    modelId,
    dimensions: spec.dimensions,
    async embed(texts: readonly string[], purpose: EmbedPurpose): Promise<Float32Array[]> {
      if (purpose === 'query' && texts.length === 1) {
        const text = texts[0]!;
        const hit = cached.get(text);
        if (hit) {
          cached.delete(text); // most recently used last
          cached.set(text, hit);
          return [hit.slice()];
        }
        const [v] = await run(oneQuery, [spec.queryPrefix + text]);
        if (cacheSize > 0) {
          cached.set(text, v!.slice());
          if (cached.size > cacheSize) cached.delete(cached.keys().next().value!);
        }
        return [v!];
      }
      const prefix = purpose === 'query' ? spec.queryPrefix : spec.documentPrefix;
      const out: Float32Array[] = [];
      // One chunk at a time: a query embedded meanwhile waits for one chunk,
      // not for the whole batch.
      for (let i = 0; i < texts.length; i += batchSize)
        out.push(
          ...(await run(
            batches,
            texts.slice(i, i + batchSize).map((t) => prefix + t),
          )),
        );
      return out;
    },
  };
}
