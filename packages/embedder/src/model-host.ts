// The one worker thread of a process that runs the embedding models.
//
// Why a thread: onnxruntime-node runs an inference on the thread that calls
// it, so on the main thread a query embedding (5-25 ms) held the event loop:
// a recall could not run its full-text and entity searches meanwhile, and
// every other request of the server waited for it.
//
// Why one per process, shared by every embedder: onnxruntime-node's native
// binding can be loaded by one thread of a process only (a second load fails
// with "Module did not self-register"), so the main thread never imports it
// and every model of the process is loaded in this one worker.
import { Worker } from 'node:worker_threads';

/** What the worker needs to load a model and turn its output into a vector. */
export interface WorkerModelSpec {
  /** Identifies one loaded session: model, folder and thread count. */
  key: string;
  modelsDir: string;
  modelId: string;
  threads: number | undefined;
  pooling: 'mean' | 'cls';
  maxTokens: number;
  dimensions: number;
}

interface Pending {
  ok: (vectors: Float32Array[]) => void;
  fail: (e: Error) => void;
}

interface Reply {
  id: number;
  vectors?: Float32Array[];
  error?: { message: string; stack?: string };
}

let worker: Worker | null = null;
const pending = new Map<number, Pending>();
let nextId = 1;

function failAll(e: Error): void {
  for (const p of pending.values()) p.fail(e);
  pending.clear();
}

function start(): Worker {
  const w = new Worker(new URL('./model-worker.mjs', import.meta.url));
  w.on('message', ({ id, vectors, error }: Reply) => {
    const p = pending.get(id);
    if (!p) return;
    pending.delete(id);
    // Idle, the worker must not keep the process alive.
    if (pending.size === 0) w.unref();
    if (error) {
      const err = new Error(error.message);
      if (error.stack) err.stack = error.stack;
      p.fail(err);
    } else p.ok(vectors!);
  });
  const gone = (e: Error) => {
    // The next request starts a new worker. Its model may fail to load:
    // onnxruntime-node cannot be loaded again in a process once a thread
    // that held it has gone, so embeddings then fail as unavailable until
    // the process restarts. The worker answers its own errors as messages,
    // so only a crash of the runtime itself ends it.
    if (worker === w) worker = null;
    failAll(e);
  };
  w.on('error', gone);
  w.on('exit', (code) => gone(new Error(`the embedding worker exited with code ${code}`)));
  return w;
}

/**
 * Embeds `texts` (already prefixed) with the model `spec` names, loading it
 * first if this process has not; zero texts only loads it. Rejects with the
 * worker's error when the model cannot load or run.
 */
export function embedInWorker(spec: WorkerModelSpec, texts: string[]): Promise<Float32Array[]> {
  const w = (worker ??= start());
  const id = nextId++;
  return new Promise<Float32Array[]>((ok, fail) => {
    pending.set(id, { ok, fail });
    w.ref();
    w.postMessage({ id, model: spec, texts });
  });
}
