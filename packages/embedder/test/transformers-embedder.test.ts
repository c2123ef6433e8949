// Tests of the real local models (not the fake); they assume
// `bash scripts/setup-models.sh` has run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTransformersEmbedder, dot, TRANSFORMERS_MODEL_IDS } from '../src/index.ts';
import type { Embedder } from '../src/index.ts';

const texts = [
  'I went to a LGBTQ support group yesterday and it was so powerful.',
  'Melanie painted a sunrise over the lake last weekend.',
  'ok',
  'What are your plans for the summer? I am thinking about adopting a dog from the shelter downtown.',
  '',
];

describe.each(TRANSFORMERS_MODEL_IDS)('transformers embedder %s', (modelId) => {
  let embedder: Embedder;
  const get = async () =>
    (embedder ??= await createTransformersEmbedder({ modelId, batchSize: 3 }));

  it('reports its model id and 384 dimensions', async () => {
    const e = await get();
    expect(e.modelId).toBe(modelId);
    expect(e.dimensions).toBe(384);
  });

  it('returns one unit-norm 384-d vector per text, in order', async () => {
    const vs = await (await get()).embed(texts, 'document');
    expect(vs).toHaveLength(texts.length);
    for (const v of vs) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(384);
      expect(Math.sqrt(dot(v, v))).toBeCloseTo(1, 5);
    }
    expect(await (await get()).embed([], 'query')).toEqual([]);
  });

  it('gives the same vectors batched as one by one', async () => {
    const e = await get();
    const batched = await e.embed(texts, 'document');
    for (const [i, t] of texts.entries()) {
      const [single] = await e.embed([t], 'document');
      const maxDiff = Math.max(...single!.map((x, j) => Math.abs(x - batched[i]![j]!)));
      expect(maxDiff).toBeLessThan(1e-4);
    }
  });

  it('puts a paraphrase closer than an unrelated sentence', async () => {
    const [a, para, other] = await (
      await get()
    ).embed(
      [
        'The cat is sleeping on the sofa.',
        'A kitten naps on the couch.',
        'Quarterly revenue rose by eight percent.',
      ],
      'document',
    );
    expect(dot(a!, para!)).toBeGreaterThan(dot(a!, other!) + 0.1);
  });

  it('ranks the matching passage first for a query', async () => {
    const e = await get();
    const [q] = await e.embed(['When did Caroline go to the support group?'], 'query');
    const docs = await e.embed(texts.slice(0, 2), 'document');
    expect(dot(q!, docs[0]!)).toBeGreaterThan(dot(q!, docs[1]!));
  });

  it('truncates inputs longer than the model accepts', async () => {
    const long = 'memory '.repeat(2000);
    const [v] = await (await get()).embed([long], 'document');
    expect(Math.sqrt(dot(v!, v!))).toBeCloseTo(1, 5);
  });
});

describe('missing model files', () => {
  const empty = mkdtempSync(join(tmpdir(), 'keepgraph-no-models-'));
  afterAll(() => rmSync(empty, { recursive: true, force: true }));

  it('says to run the setup script', async () => {
    await expect(createTransformersEmbedder({ modelsDir: empty })).rejects.toThrow(
      /bash scripts\/setup-models\.sh/,
    );
  });
});

describe('a lazily loaded model', () => {
  it('checks the files at once, loads on the first embedding, and gives the same vectors as an eager one', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'kg-no-models-'));
    try {
      await expect(createTransformersEmbedder({ lazy: true, modelsDir: empty })).rejects.toThrow(
        /not installed/,
      );
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
    const lazy = await createTransformersEmbedder({ lazy: true });
    expect(lazy.dimensions).toBe(384);
    expect(await lazy.embed([], 'document')).toEqual([]);
    const eager = await createTransformersEmbedder();
    const texts = ['The user prefers aisle seats.', 'Which seat should I book?'];
    const [a, b] = await Promise.all([lazy.embed(texts, 'query'), eager.embed(texts, 'query')]);
    expect(a.map((v) => Array.from(v))).toEqual(b.map((v) => Array.from(v)));
  });
});

describe('the intra-op thread count', () => {
  it('is a positive integer, and one thread gives the same vectors as the default', async () => {
    await expect(createTransformersEmbedder({ threads: 0 })).rejects.toThrow(/threads/);
    await expect(createTransformersEmbedder({ threads: 1.5 })).rejects.toThrow(/threads/);
    const one = await createTransformersEmbedder({ threads: 1 });
    const dflt = await createTransformersEmbedder();
    const texts = ['The user prefers aisle seats.', 'Which seat should I book for Friday?'];
    for (const purpose of ['query', 'document'] as const) {
      const [a, b] = await Promise.all([one.embed(texts, purpose), dflt.embed(texts, purpose)]);
      expect(a.map((v) => Array.from(v))).toEqual(b.map((v) => Array.from(v)));
    }
  });

  it('embeds a one-text query on its own session, with the vectors of a batch', async () => {
    await expect(createTransformersEmbedder({ queryThreads: 0 })).rejects.toThrow(/queryThreads/);
    // The default's one-text queries run on one thread; these on two.
    const dflt = await createTransformersEmbedder({ queryCacheSize: 0 });
    const two = await createTransformersEmbedder({ queryThreads: 2, queryCacheSize: 0 });
    const texts = ['Which seat should I book for Friday?', 'ok', 'Where is the spare key?'];
    const batch = await dflt.embed(texts, 'query');
    for (const [i, t] of texts.entries()) {
      const [a] = await dflt.embed([t], 'query');
      const [b] = await two.embed([t], 'query');
      expect(Array.from(a!)).toEqual(Array.from(batch[i]!));
      expect(Array.from(b!)).toEqual(Array.from(batch[i]!));
    }
  });
});

describe('the model thread', () => {
  it('runs the model off the main thread: the ONNX binding is never loaded here', async () => {
    // Loaded on this thread, onnxruntime-node would hold the event loop for
    // each inference (and could not load in the model thread at all).
    const e = await createTransformersEmbedder();
    const [v] = await e.embed(['Where did I leave the spare key?'], 'query');
    expect(v!.length).toBe(384);
    const loadedHere = Object.keys(createRequire(import.meta.url).cache).filter((p) =>
      p.includes('onnxruntime'),
    );
    expect(loadedHere).toEqual([]);
  });

  it('serves embedders of two models from the one thread, each its own vectors', async () => {
    const [bge, mini] = await Promise.all(
      TRANSFORMERS_MODEL_IDS.map((modelId) => createTransformersEmbedder({ modelId })),
    );
    const text = ['The user prefers aisle seats.'];
    const [a, b] = await Promise.all([bge!.embed(text, 'document'), mini!.embed(text, 'document')]);
    expect(dot(a[0]!, b[0]!)).toBeLessThan(0.99);
    expect(Array.from((await bge!.embed(text, 'document'))[0]!)).toEqual(Array.from(a[0]!));
  });
});

describe('the query cache', () => {
  it('gives a repeated query the vector of a fresh inference, and copies a caller cannot change', async () => {
    await expect(createTransformersEmbedder({ queryCacheSize: -1 })).rejects.toThrow(
      /queryCacheSize/,
    );
    const cached = await createTransformersEmbedder({ queryCacheSize: 2 });
    const fresh = await createTransformersEmbedder({ queryCacheSize: 0 });
    const qs = ['Which seat should I book?', 'Where is the spare key?', 'What does Alex eat?'];
    for (const q of [...qs, ...qs, qs[2]!, qs[2]!]) {
      const [a] = await cached.embed([q], 'query');
      const [b] = await fresh.embed([q], 'query');
      expect(Array.from(a!)).toEqual(Array.from(b!));
      a!.fill(0); // the next answer for q must not see this
    }
    // A document of the same words is not a query: no prefix, another vector.
    const [doc] = await cached.embed([qs[0]!], 'document');
    const [query] = await cached.embed([qs[0]!], 'query');
    expect(dot(doc!, query!)).toBeLessThan(0.999);
  });
});
