// Invariant 4, policy first: secrets, personal data, service phrases, short
// text, high sensitivity, untrusted sources and TTLs out of range are refused
// with a reason code, audited by hash, and never reach the store.
import { createHash, randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import {
  atRest,
  conformanceSuite,
  expectCode,
  fact,
  kv,
  makeFixture,
  operator,
  pageSays,
  rejectionOf,
  user,
  userEpisode,
} from '../harness.ts';

// Realistic-looking credentials built at run time, so this file itself holds
// no literal secret for scanners to trip on.
const AWS_KEY = 'AKIA' + 'Q3WZ7XKD4NPL2RHM';
const GITHUB_TOKEN = 'ghp_' + 'a8Kd93LmQz7Xv2Rt5Wy1Nc4Pb6Hj0Fs8Ue3G';
const PEM_BODY =
  'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxKLxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo9z+40RQzuVaE8AkAFmxZzow3x+VJYKdjykkJ0iT9wCS0DRTXu269V264Vf/3jvredZiKRkgwlL9xNAwxXFg0x/XFw005UWVRIkdgcKWTjpBP2dPwVZ4WWC+9aGVd+Gyn1o0CLelf4rEjGoXbAAEgAqeGUxrcIlbjXfbcmwIDAQABAoIBAQCL';
const PEM_KEY = ['-----BEGIN RSA PRIVATE KEY-----', PEM_BODY, '-----END RSA PRIVATE KEY-----'].join(
  '\n',
);

/** A harmless fact, for refusals that come from one of its other fields. */
const BENIGN = fact('Benign note about the garden shed', { origin: { sessionId: 'g1' } });
/** A harmless session append. */
const LISBON_TRIP = {
  messages: [{ role: 'user' as const, text: 'Planning the trip to Lisbon in June' }],
};

export const policySuite = conformanceSuite('invariant 4: policy first', (f, opts) => {
  const secrets: [string, string][] = [
    ['an AWS access key', `my deploy key is ${AWS_KEY} please remember it`],
    ['a PEM private key', `here is the server key:\n${PEM_KEY}`],
    ['a GitHub token', `use token ${GITHUB_TOKEN} for the repo`],
  ];
  for (const [name, text] of secrets) {
    it(`refuses ${name} with refused_secret, audits only its hash, and stores it nowhere`, async () => {
      const o = f.owner();
      await expectCode(userEpisode(f, o, text), 'refused_secret');
      expect(await f.store.countMemories(o)).toBe(0);
      const events = await f.engine.auditList(operator, { ownerId: o });
      const refusal = events.find((e) => e.type === 'refuse');
      expect(refusal?.reason).toBe('refused_secret');
      // A keyed hash: the plain sha256 of a short refused value could be found offline.
      expect(refusal?.contentHashes).toEqual([f.engine.deps.keyedHash(text)]);
      expect(refusal?.contentHashes).not.toContain(
        createHash('sha256').update(text.normalize('NFC')).digest('hex'),
      );
      const kept = await atRest(f);
      for (const needle of [AWS_KEY, GITHUB_TOKEN, PEM_BODY.slice(0, 40)]) {
        expect(kept(needle)).toBe(false);
      }
    });
  }

  it('redacts an email address (default policy) and keeps the rest', async () => {
    const o = f.owner();
    const { memory } = await userEpisode(
      f,
      o,
      'Send the invoice to jamie.doe@example.org by Friday',
    );
    expect(memory.text).not.toContain('jamie.doe@example.org');
    expect(memory.text).toContain('by Friday');
    expect(memory.redactions).toContain('email');
  });

  it('refuses a payment card number', async () => {
    await expectCode(
      userEpisode(f, f.owner(), 'my card is 4111 1111 1111 1111 exp 09/29'),
      'refused_personal_data',
    );
  });

  it('reads every stored field, not only the text: a secret or personal data anywhere is refused, naming the field, and stored nowhere', async () => {
    const card = '4111 1111 1111 1111';
    const cases: [string, Record<string, unknown>, string][] = [
      ['key', { key: AWS_KEY }, 'refused_secret'],
      ['tags[0]', { tags: [GITHUB_TOKEN] }, 'refused_secret'],
      [
        'origin.tool.callId',
        { origin: { sessionId: 'g1', tool: { name: 'crm', callId: GITHUB_TOKEN } } },
        'refused_secret',
      ],
      ['origin.sessionId', { origin: { sessionId: AWS_KEY } }, 'refused_secret'],
      [
        'origin.speaker',
        { origin: { sessionId: 'g1', speaker: 'jamie.doe@example.org' } },
        'refused_personal_data',
      ],
      [
        'relations[0].subject.name',
        {
          relations: [
            { subject: { name: card, type: 'person' }, type: 'KNOWS', object: { name: 'Carol' } },
          ],
        },
        'refused_personal_data',
      ],
      [
        'relations[0].reason',
        {
          relations: [
            {
              subject: { name: 'Ann' },
              type: 'KNOWS',
              object: { name: 'Carol' },
              reason: `token ${GITHUB_TOKEN}`,
            },
          ],
        },
        'refused_secret',
      ],
      ['about[0].name', { about: [{ name: AWS_KEY }] }, 'refused_secret'],
      [
        'origin.source.uri',
        { origin: { source: { kind: 'url', uri: 'https://example.com/u/jamie.doe@example.org' } } },
        'refused_personal_data',
      ],
    ];
    const o = f.owner();
    for (const [field, extra, code] of cases) {
      const err = await rejectionOf(f.engine.remember(user, o, { ...BENIGN, ...extra } as never));
      expect({ field, code: (err as { code?: string })?.code }).toEqual({ field, code });
      expect((err as { details?: { field?: string } }).details?.field).toBe(field);
    }
    expect(await f.store.countMemories(o)).toBe(0);
    const kept = await atRest(f);
    for (const needle of [AWS_KEY, GITHUB_TOKEN, card, 'jamie.doe@example.org'])
      expect(kept(needle)).toBe(false);
  });

  it('an owner id holding a secret or personal data is refused on every write route; its refusal names no owner', async () => {
    // A write of our own marks where this test's audit events start (the log is shared).
    const marker = f.owner();
    await f.engine.remember(user, marker, BENIGN);
    const [start] = await f.engine.auditList(operator, { ownerId: marker });
    const secretOwner = `tenant-${AWS_KEY}`;
    const emailOwner = `casey.${randomUUID().slice(0, 6)}@example.org`;
    for (const [owner, code] of [
      [secretOwner, 'refused_secret'],
      [emailOwner, 'refused_personal_data'],
    ] as const) {
      for (const attempt of [
        () => f.engine.remember(user, owner, BENIGN),
        () =>
          f.engine.rememberMany(user, owner, [BENIGN]).then((r) => {
            if (r.failed[0])
              throw Object.assign(new Error(r.failed[0].message), {
                code: r.failed[0].code,
                details: { field: 'ownerId' },
              });
            return r;
          }),
        () => f.engine.putByKey(user, owner, 'theme', kv('dark mode please')),
        () => f.engine.sessionAppend(user, owner, 's1', LISBON_TRIP),
      ]) {
        expect(await rejectionOf(attempt())).toMatchObject({ code, details: { field: 'ownerId' } });
      }
      expect(await f.store.countMemories(owner)).toBe(0);
    }
    const ours = new Set([secretOwner, emailOwner].map((x) => f.engine.deps.keyedHash(x)));
    const refusals = (
      await f.engine.auditList(operator, { afterSeq: start!.seq, limit: 1000 })
    ).filter((e) => e.type === 'refuse' && ours.has(String(e.details.ownerIdHash)));
    expect(refusals).toHaveLength(8);
    for (const e of refusals) {
      expect(e.ownerId).toBeNull();
      expect(String(e.details.ownerIdHash)).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    }
    const kept = await atRest(f);
    for (const needle of [AWS_KEY, emailOwner]) expect(kept(needle), needle).toBe(false);
  });

  it('a session id or a kv key holding a secret is refused on its own route and stored nowhere', async () => {
    const o = f.owner();
    const err = await rejectionOf(f.engine.sessionAppend(user, o, `sess-${AWS_KEY}`, LISBON_TRIP));
    expect(err).toMatchObject({ code: 'refused_secret', details: { field: 'sessionId' } });
    await expectCode(
      f.engine.putByKey(user, o, GITHUB_TOKEN, kv('dark mode please')),
      'refused_secret',
    );
    expect(await f.store.countMemories(o)).toBe(0);
    const kept = await atRest(f);
    for (const needle of [AWS_KEY, GITHUB_TOKEN]) expect(kept(needle)).toBe(false);
  });

  it('the audit log and read log keep keys and session ids only as keyed hashes', async () => {
    const o = f.owner();
    const key = `pin-note-${randomUUID()}`;
    const session = `chat-${randomUUID()}`;
    await f.engine.putByKey(user, o, key, kv('the garden gate code changed in spring'));
    await f.engine.putByKey(user, o, key, kv('the garden gate code changed again in autumn'));
    await f.engine.sessionAppend(user, o, session, LISBON_TRIP);
    await f.engine.recall(user, o, 'garden gate', { sessionId: session });
    const events = await f.engine.auditList(operator, { ownerId: o });
    const supersede = events.find((e) => e.type === 'supersede');
    expect(supersede?.details).toMatchObject({ keyHash: f.engine.deps.keyedHash(key) });
    expect(events.find((e) => e.type === 'session_append')?.details).toMatchObject({
      sessionIdHash: f.engine.deps.keyedHash(session),
    });
    expect(events.find((e) => e.type === 'read')?.details).toMatchObject({
      sessionIdHash: f.engine.deps.keyedHash(session),
    });
    const audit = JSON.stringify(events);
    for (const plain of [key, session]) {
      expect(audit).not.toContain(plain);
      expect(audit).not.toContain(createHash('sha256').update(plain).digest('hex'));
    }
    // The session id is in the buffer until the session goes, but no read-log row keeps it.
    await f.engine.forgetOwner(operator, o);
    const kept = await atRest(f);
    expect(kept(session)).toBe(false);
    expect(kept(key)).toBe(false);
  });

  it('identifiers are refused, never trimmed, and a lone surrogate is invalid input, not a changed text', async () => {
    const o = f.owner();
    await expectCode(f.engine.sessionAppend(user, o, ' padded ', LISBON_TRIP), 'invalid_input');
    await expectCode(f.engine.sessionAppend(user, o, 'tab\tid', LISBON_TRIP), 'invalid_input');
    await expectCode(f.engine.putByKey(user, o, 'theme ', kv('dark mode please')), 'invalid_input');
    await expectCode(
      userEpisode(f, o, 'Lone \uD800 surrogate in a note about the garden'),
      'invalid_input',
    );
    await expectCode(
      userEpisode(f, o, 'A note about the garden shed roof', { tags: ['ok', 'bad\uDC00'] }),
      'invalid_input',
    );
    expect(await f.store.countMemories(o)).toBe(0);
    // A pair is fine, and stored text hashes to its content hash.
    const { memory } = await userEpisode(f, o, 'The garden shed roof 🌧 leaks again');
    expect(memory.contentHash).toBe(
      createHash('sha256').update(memory.text.normalize('NFC')).digest('hex'),
    );
    // NFC: two spellings of one session id are one session.
    await f.engine.sessionAppend(user, o, 'e\u0301leve', LISBON_TRIP);
    expect((await f.engine.sessionContext(user, o, '\u00E9leve')).session).toHaveLength(1);
  });

  it('refuses a service phrase and text too short to matter', async () => {
    await expectCode(userEpisode(f, f.owner(), 'Ok, thank you so much!'), 'refused_service_phrase');
    await expectCode(userEpisode(f, f.owner(), 'hm'), 'refused_too_short');
  });

  it('refuses high sensitivity', async () => {
    await expectCode(
      userEpisode(f, f.owner(), 'Diagnosed with a rare condition last year', {
        sensitivity: 'high',
      }),
      'refused_high_sensitivity',
    );
  });

  it('refuses a TTL out of range and a negative TTL', async () => {
    await expectCode(
      userEpisode(f, f.owner(), 'Prefers window seats on trains', { ttlSeconds: 1 }),
      'refused_ttl_out_of_range',
    );
    await expectCode(
      userEpisode(f, f.owner(), 'Prefers window seats on trains', { ttlSeconds: -5 }),
      'invalid_input',
    );
  });

  it('refuses a source the policy does not trust', async () => {
    const strict = await makeFixture(opts, f.sut, {
      policy: (p) => ({
        ...p,
        sources: { ...p.sources, hosts: { allow: [], deny: ['evil.example'] } },
      }),
    });
    await expectCode(
      strict.engine.remember(
        operator,
        strict.owner(),
        pageSays(
          'The product launch moved to June according to the blog',
          'https://evil.example/post',
        ),
      ),
      'refused_untrusted_source',
    );
  });
});
