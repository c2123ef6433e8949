// The client calls exactly the server's routes: every route the server
// declares (its method and URL, from the use-case registry) is one of
// ROUTES, and every one of ROUTES is a route the server declares. Kept among
// the workspace's tests, so the client package does not depend on the server.
import { describe, expect, it } from 'vitest';
import { USE_CASE_ROUTES } from '@keepgraph/server';
import { ROUTES } from '@keepgraph/client';

describe('the client routes', () => {
  it('are the server routes, one for one', () => {
    const server = USE_CASE_ROUTES.map((r) => `${r.method} ${r.url}`).sort();
    expect([...Object.values(ROUTES)].sort()).toEqual(server);
  });
});
