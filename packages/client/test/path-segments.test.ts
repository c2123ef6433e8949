// Ids as path segments: every id reaches the route it names. URL parsing
// removes a `.` or `..` segment (and `%2E%2E`), so such an id would send a
// call about session `..` of owner `zed` to `/v1/owners/zed/...`; the
// client refuses those ids before sending, as the server does. A fetch that
// records what it is asked stands in for the server.
import { describe, expect, it } from 'vitest';
import { KeepGraphClient, KeepGraphError } from '../src/index.ts';

function recording() {
  const urls: string[] = [];
  const client = new KeepGraphClient({
    baseUrl: 'http://keepgraph.test',
    apiKey: 'kgk_test',
    retries: 0,
    fetch: (async (input: URL | string) => {
      urls.push(new URL(String(input)).pathname);
      return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
    }) as typeof fetch,
  });
  return { client, urls };
}

async function refusal(p: Promise<unknown>): Promise<KeepGraphError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(KeepGraphError);
  return e as KeepGraphError;
}

describe('ids in URL paths', () => {
  it('a session, owner, memory or key of "." or ".." is refused before anything is sent', async () => {
    const { client, urls } = recording();
    const calls = [
      () => client.readSession('zed', '..'),
      () => client.forgetSession('zed', '..', { dryRun: true }),
      () => client.deleteSession('zed', '.'),
      () =>
        client.sessionAppend('zed', '..', { messages: [{ role: 'user', text: 'hello there' }] }),
      () => client.listMemories('..'),
      () => client.forgetOwner('..'),
      () => client.get('zed', '..'),
      () => client.getByKey('zed', '.'),
      () => client.revokeKey('..'),
    ];
    for (const call of calls) {
      const e = await refusal(call());
      expect([e.code, e.status]).toEqual(['invalid_input', 0]);
    }
    // Nothing reached a route, least of all /v1/owners/zed/forget or /v1/owners/zed.
    expect(urls).toEqual([]);
  });

  it('ids that merely hold dots reach their own route, escaped whole', async () => {
    const { client, urls } = recording();
    await client.readSession('zed', '...');
    await client.readSession('zed', '.hidden');
    await client.readSession('z.e.d', 'a..b');
    await client.readSession('zed', '%2E%2E');
    await client.deleteSession('zed', 'a/../b');
    expect(urls).toEqual([
      '/v1/owners/zed/sessions/.../messages',
      '/v1/owners/zed/sessions/.hidden/messages',
      '/v1/owners/z.e.d/sessions/a..b/messages',
      '/v1/owners/zed/sessions/%252E%252E/messages',
      '/v1/owners/zed/sessions/a%2F..%2Fb',
    ]);
  });
});
