// Print the server's OpenAPI document (the one /openapi.json serves) without
// starting a server or opening a store: the routes, their schemas and the
// named answer components are the app's, the engine behind it is never
// called. The Python client's models are generated from it.
import { type Engine } from '@keepgraph/core';
import { defaultPolicy } from '@keepgraph/core/policy';
import { buildApp } from '../src/app.ts';

const engine = new Proxy({} as Engine, {
  get(_t, prop) {
    if (prop === 'then') return undefined;
    if (prop === 'services')
      return { serving: { store: 'none', model: 'none' }, limits: defaultPolicy().limits };
    return () => Promise.reject(new Error('the document needs no engine'));
  },
});
const app = buildApp({
  engine,
  auth: { trustedCaller: { role: 'operator', owners: 'all', principal: 'openapi' } },
});
await app.ready();
process.stdout.write(`${JSON.stringify(app.swagger(), null, 2)}\n`);
await app.close();
