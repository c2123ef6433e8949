// The thread that runs the embedding models (see model-host.ts for why the
// model lives here). Plain JavaScript: a worker thread does not inherit the
// TypeScript loader the rest of the process runs under.
//
// Messages in: { id, model: { key, modelsDir, modelId, threads, pooling,
// maxTokens, dimensions }, texts }. Out: { id, vectors } (buffers
// transferred) or { id, error: { message, stack } }. Zero texts only loads.
import { parentPort } from 'node:worker_threads';

/** @type {Map<string, Promise<{ tokenizer: any, model: any, Tensor: any }>>} */
const models = new Map();

// transformers.js reads env.localModelPath while it loads, so loads that use
// different folders must not interleave: chain them.
let loadQueue = Promise.resolve();

function load(spec) {
  let loading = models.get(spec.key);
  if (loading) return loading;
  const run = async () => {
    const { AutoModel, AutoTokenizer, Tensor, env } = await import('@huggingface/transformers');
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = spec.modelsDir;
    const tokenizer = await AutoTokenizer.from_pretrained(spec.modelId, { local_files_only: true });
    // dtype q8 selects onnx/model_quantized.onnx, the file the jars ship.
    const model = await AutoModel.from_pretrained(spec.modelId, {
      dtype: 'q8',
      device: 'cpu',
      local_files_only: true,
      ...(spec.threads ? { session_options: { intraOpNumThreads: spec.threads } } : {}),
    });
    return { tokenizer, model, Tensor };
  };
  loading = loadQueue.then(run, run);
  loadQueue = loading.catch(() => undefined);
  models.set(spec.key, loading);
  // A failed load is tried again on the next request.
  loading.catch(() => models.delete(spec.key));
  return loading;
}

function l2Normalize(v) {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i] = v[i] / norm;
  return v;
}

async function embedOne({ tokenizer, model, Tensor }, spec, text) {
  let ids = tokenizer.encode(text); // [CLS] ... [SEP]
  // Truncate the content, not the trailing [SEP] (transformers.js's own
  // truncation would cut it off; HF Python and sentence-transformers keep it).
  if (ids.length > spec.maxTokens) ids = [...ids.slice(0, spec.maxTokens - 1), ids[ids.length - 1]];
  const n = ids.length;
  const output = await model({
    input_ids: new Tensor('int64', BigInt64Array.from(ids, BigInt), [1, n]),
    attention_mask: new Tensor('int64', new BigInt64Array(n).fill(1n), [1, n]),
    token_type_ids: new Tensor('int64', new BigInt64Array(n), [1, n]),
  });
  const hidden = output.last_hidden_state.data;
  const d = spec.dimensions;
  if (spec.pooling === 'cls') return l2Normalize(hidden.slice(0, d));
  // Mean over all tokens: with one unpadded text, every token is attended.
  const v = new Float32Array(d);
  for (let t = 0; t < n; t++) for (let j = 0; j < d; j++) v[j] += hidden[t * d + j];
  for (let j = 0; j < d; j++) v[j] /= n;
  return l2Normalize(v);
}

parentPort.on('message', async ({ id, model, texts }) => {
  try {
    const m = await load(model);
    // Each text on its own (see createTransformersEmbedder): a padded batch
    // would make a text's vector depend on its batch-mates.
    const vectors = await Promise.all(texts.map((t) => embedOne(m, model, t)));
    parentPort.postMessage(
      { id, vectors },
      vectors.map((v) => v.buffer),
    );
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    parentPort.postMessage({ id, error: { message: err.message, stack: err.stack } });
  }
});
