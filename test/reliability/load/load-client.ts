// One load client process of the leak-probe run (load-leak-probes.test.ts):
// until its deadline it writes, recalls, reads session context, appends to
// sessions, forgets and probes other owners for its own owners, each through
// that owner's own key, against the API processes in turn. Every answer is
// scanned for owner markers: a marker of an owner other than the one asked
// for is a leak. Between the load it sends its share of the refusal corpus
// and compares each answer's code with the single-threaded one.
// Reads its config (LoadClientConfig, JSON) from the file KG_LOAD_CLIENT_CONFIG names;
// prints its tally (LoadClientTally, JSON) as the last line of stdout.
import { readFileSync } from 'node:fs';
import { KeepGraphClient, isKeepGraphError } from '@keepgraph/client';
import { seededRandom } from '@keepgraph/core/testing';

export interface LoadOwner {
  id: string;
  key: string;
  marker: string;
}

/** One corpus value sent through one route, with the answer it got alone. */
export interface CorpusSend {
  owner: number;
  route: CorpusRoute;
  value: string;
  /** `ok` or the error code of the single-threaded answer. */
  expected: string;
}

export type CorpusRoute = 'remember' | 'batch' | 'kv' | 'session';

export interface LoadClientConfig {
  bases: string[];
  seconds: number;
  seed: number;
  owners: LoadOwner[];
  /** Owners of other clients, for cross-owner probes (their ids only). */
  strangers: string[];
  /** Source of a RegExp matching every owner marker. */
  markerPattern: string;
  corpus: CorpusSend[];
}

export interface LoadClientTally {
  ops: Record<string, number>;
  statuses: Record<string, number>;
  recallProbes: number;
  memoriesChecked: number;
  /** Markers of the asking owner seen in answers: the scan finds markers at all. */
  ownMarkersSeen: number;
  leaks: string[];
  crossOwnerRefused: number;
  crossOwnerServed: number;
  corpusSent: number;
  corpusMismatches: string[];
  /** Ids written and not forgotten by this client, per owner. */
  kept: Record<string, string[]>;
  errors: string[];
}

const TOPICS = [
  'the garden shed roof',
  'a weekend trip to the coast',
  'the quarterly planning meeting',
  'a new recipe for lentil soup',
  'the bicycle repair shop',
  'tickets for the jazz concert',
  'the dentist appointment',
  'a book about sailing',
];

/** The text every write of an owner carries: its marker inside ordinary words. */
export const markedText = (marker: string, topic: string, n: number) =>
  `Note ${marker} about ${topic}, entry ${spell(n)}`;

/** A number in letters: a digit run could be read as personal data. */
export const spell = (n: number) =>
  [...n.toString(16)].map((d) => String.fromCharCode(97 + parseInt(d, 16))).join('');

/** Sends one corpus value through its route for `owner`; the answer's code, or `ok`. */
export async function sendCorpus(
  client: KeepGraphClient,
  owner: LoadOwner,
  send: Pick<CorpusSend, 'route' | 'value'>,
  n: number,
): Promise<string> {
  const text = `Note ${owner.marker} with ${send.value} in it`;
  try {
    switch (send.route) {
      case 'remember':
        await client.remember(owner.id, { kind: 'fact', text, origin: { sessionId: 'corpus' } });
        break;
      case 'batch': {
        // A batch answers 200 with each refused item's code.
        const { failed } = await client.rememberMany(owner.id, [
          { kind: 'fact', text, origin: { sessionId: 'corpus' } },
        ]);
        if (failed.length > 0) return failed[0]!.code;
        break;
      }
      case 'kv':
        await client.putByKey(owner.id, `corpus-${spell(n)}`, {
          text,
          origin: { sessionId: 'corpus' },
        });
        break;
      case 'session':
        await client.sessionAppend(owner.id, 'corpus', {
          messages: [{ role: 'user', text }],
          remember: true,
        });
        break;
    }
    return 'ok';
  } catch (e) {
    if (isKeepGraphError(e)) return e.status >= 500 ? `status ${e.status}` : e.code;
    throw e;
  }
}

async function main(configPath: string): Promise<void> {
  const config = JSON.parse(readFileSync(configPath, 'utf8')) as LoadClientConfig;
  const rnd = seededRandom(config.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const markers = new RegExp(config.markerPattern, 'g');
  const tally: LoadClientTally = {
    ops: {},
    statuses: {},
    recallProbes: 0,
    memoriesChecked: 0,
    ownMarkersSeen: 0,
    leaks: [],
    crossOwnerRefused: 0,
    crossOwnerServed: 0,
    corpusSent: 0,
    corpusMismatches: [],
    kept: Object.fromEntries(config.owners.map((o) => [o.id, []])),
    errors: [],
  };
  const clients = new Map(
    config.owners.map((o) => [
      o.id,
      config.bases.map((baseUrl) => new KeepGraphClient({ baseUrl, apiKey: o.key, retries: 0 })),
    ]),
  );
  let turn = 0;
  const clientFor = (o: LoadOwner) => clients.get(o.id)![turn++ % config.bases.length]!;
  const count = (status: number) => (tally.statuses[status] = (tally.statuses[status] ?? 0) + 1);
  /** Every marker in an answer must be the asking owner's. */
  const scan = (owner: LoadOwner, route: string, answer: unknown) => {
    for (const m of JSON.stringify(answer).match(markers) ?? [])
      if (m === owner.marker) tally.ownMarkersSeen++;
      else tally.leaks.push(`${route}: ${owner.id} got ${m}`);
  };
  const run = async (op: string, fn: () => Promise<void>) => {
    tally.ops[op] = (tally.ops[op] ?? 0) + 1;
    try {
      await fn();
      count(200);
    } catch (e) {
      if (!isKeepGraphError(e)) throw e;
      count(e.status);
      if (e.status >= 500 || e.status === 0)
        tally.errors.push(`${op}: ${e.status} ${e.code} ${e.message}`.slice(0, 300));
    }
  };

  const deadline = Date.now() + config.seconds * 1000;
  const corpus = [...config.corpus];
  let n = 0;
  while (Date.now() < deadline) {
    n++;
    const owner = pick(config.owners);
    const client = clientFor(owner);
    const kept = tally.kept[owner.id]!;
    // About one corpus value every 20 operations, spread over the run.
    if (corpus.length > 0 && n % 20 === 0) {
      const send = corpus.shift()!;
      const who = config.owners[send.owner]!;
      const got = await sendCorpus(clientFor(who), who, send, n);
      tally.corpusSent++;
      tally.ops.corpus = (tally.ops.corpus ?? 0) + 1;
      count(got === 'ok' ? 200 : got.startsWith('status') ? Number(got.slice(7)) : 422);
      if (got !== send.expected)
        tally.corpusMismatches.push(`${send.route}: ${send.expected} alone, ${got} under load`);
      continue;
    }
    const r = rnd();
    if (r < 0.7) {
      await run('recall', async () => {
        const answer = await client.recall(owner.id, `What about ${pick(TOPICS)}?`, { topK: 10 });
        tally.recallProbes++;
        tally.memoriesChecked += answer.results.length;
        for (const hit of answer.results)
          if (hit.memory.ownerId !== owner.id)
            tally.leaks.push(`recall: ${owner.id} got a memory of ${hit.memory.ownerId}`);
        scan(owner, 'recall', answer);
      });
    } else if (r < 0.76) {
      await run('context', async () => {
        const answer = await client.sessionContext(owner.id, 'chat', `And ${pick(TOPICS)}?`);
        tally.recallProbes++;
        tally.memoriesChecked += answer.longTerm?.results.length ?? 0;
        scan(owner, 'context', answer);
      });
    } else if (r < 0.88) {
      await run('write', async () => {
        const { memory } = await client.remember(owner.id, {
          kind: 'fact',
          text: markedText(owner.marker, pick(TOPICS), n),
          origin: { sessionId: 'load' },
        });
        kept.push(memory.id);
      });
    } else if (r < 0.94) {
      await run('session', async () => {
        await client.sessionAppend(owner.id, 'chat', {
          messages: [{ role: 'user', text: markedText(owner.marker, pick(TOPICS), n) }],
          remember: rnd() < 0.5,
        });
      });
    } else if (r < 0.98) {
      if (kept.length === 0) continue;
      const id = kept.splice(Math.floor(rnd() * kept.length), 1)[0]!;
      await run('forget', async () => {
        await client.forget(owner.id, [id]).catch((e: unknown) => {
          // Evicted over the cap, or consolidated away, before this client forgot it.
          if (isKeepGraphError(e) && e.code === 'not_found') return;
          throw e;
        });
      });
    } else {
      // This owner's key asking for another client's owner: refused, never served.
      const stranger = pick(config.strangers);
      tally.ops.cross = (tally.ops.cross ?? 0) + 1;
      try {
        const answer = await client.recall(stranger, 'What about the garden shed roof?');
        tally.crossOwnerServed++;
        scan(owner, 'cross-owner recall', answer);
        count(200);
      } catch (e) {
        if (!isKeepGraphError(e)) throw e;
        count(e.status);
        if (e.status === 403) tally.crossOwnerRefused++;
        else tally.errors.push(`cross: ${e.status} ${e.code}`);
      }
    }
  }
  // Whatever corpus is left (a short run) is sent at the end.
  for (const send of corpus) {
    const who = config.owners[send.owner]!;
    const got = await sendCorpus(clientFor(who), who, send, n++);
    tally.corpusSent++;
    if (got !== send.expected)
      tally.corpusMismatches.push(`${send.route}: ${send.expected} alone, ${got} under load`);
  }
  process.stdout.write(`${JSON.stringify(tally)}\n`);
}

// Run as a process (the test imports the types and sendCorpus only).
if (process.env.KG_LOAD_CLIENT_CONFIG) await main(process.env.KG_LOAD_CLIENT_CONFIG);
