// The fuzz cases: every route the server has, from the registry and the
// OpenAPI document, each with inputs generated from its own zod schemas,
// a credential, and one hostile variant (or none). A case is data: its
// placeholders name pools filled while the run goes (owners, memories
// written so far, sessions, keys), and `toWire` makes its bytes when it is
// sent.
import fc from 'fast-check';
import {
  AUTHORITIES,
  MEMORY_KINDS,
  MemoryInputSchema,
  USE_CASES,
  type UseCaseName,
} from '@keepgraph/core';
import { TOOLS } from '@keepgraph/mcp';
import { USE_CASE_ROUTES } from '@keepgraph/server';
import {
  AsJson,
  CONTENT_TYPES,
  DEPTHS,
  Deep,
  Filler,
  HUGE,
  PATH_TRICKS,
  RAW_PATH_TRICKS,
  Ref,
  UNICODE_EDGES,
  VARIANTS,
  WIRE_TRICKS,
  WRONG_TYPES,
  isPlainObject,
  nth,
  pathsOf,
  removeAt,
  replaceAt,
  type PoolName,
  type Variant,
  type WireTrick,
} from './hostile.ts';
import { arbitraryOf, sentence, type Hint, type JsonSchema } from './json-schema-arbitrary.ts';
import { Raw, escape, jsonText, segment, type Resolve, type WireRequest } from './wire.ts';

/** Who sends a case: a key of each role, keys that must not work, or none. */
export const CREDENTIALS = [
  'operator',
  'user',
  'agent',
  'tool',
  'analyst',
  /** A user key of another owner. */
  'other-owner',
  'revoked',
  'malformed',
  'none',
] as const;
export type CredentialName = (typeof CREDENTIALS)[number];

/** Authorization headers no server should take. */
export const MALFORMED_AUTH: readonly string[] = [
  'Bearer',
  'Bearer ',
  'Bearer kgk_',
  'Bearer kgk_0123456789abcdef_notasecret',
  'Bearer kgk_ü',
  'Basic dXNlcjpwYXNz',
  'Token kgk_x',
  'Bearer a b',
  `Bearer ${'k'.repeat(5000)}`,
  'Bearer kgk_\u0000',
  'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.',
];

/** A route as the fuzz sees it. */
export interface FuzzRoute {
  /** `POST /v1/owners/:ownerId/memories` */
  name: string;
  method: string;
  /** The path pattern, find-my-way style (`::` is a literal colon). */
  url: string;
  /** The registry use-case it runs; absent for the routes that are not use-cases. */
  useCase?: string;
  kind: 'use-case' | 'other' | 'mcp';
  params?: JsonSchema;
  query?: JsonSchema;
  body?: JsonSchema;
}

/** Routes the OpenAPI document hides, which are routes all the same. */
const HIDDEN_ROUTES = [
  'GET /openapi.json',
  'GET /docs',
  'GET /ui/:file',
  'GET /mcp',
  'DELETE /mcp',
];

const toJsonSchema = (s: unknown): JsonSchema | undefined =>
  s === undefined
    ? undefined
    : ((s as { toJSONSchema(o: object): JsonSchema }).toJSONSchema({
        io: 'input',
        unrepresentable: 'any',
      }) as JsonSchema);

/** `/owners/:ownerId/memories::batch` as OpenAPI writes it: `/owners/{ownerId}/memories:batch`. */
const openApiPath = (url: string) =>
  url.replace(/::|:(\w+)/g, (m, name: string | undefined) => (m === '::' ? ':' : `{${name}}`));

/**
 * Every route: the use-case routes of the registry with their schemas, the
 * other routes of the OpenAPI document (`paths`), the hidden ones, and the
 * MCP endpoint. Throws if the document lists a use-case route the registry
 * does not, or the other way round.
 */
export function allRoutes(paths: Record<string, Record<string, unknown>>): FuzzRoute[] {
  const routes: FuzzRoute[] = USE_CASE_ROUTES.map((r) => ({
    name: `${r.method} /v1${r.url}`,
    method: String(r.method),
    url: `/v1${r.url}`,
    useCase: r.useCase,
    kind: 'use-case' as const,
    params: toJsonSchema(r.params),
    query: toJsonSchema(r.querystring),
    body: toJsonSchema(r.body),
  }));
  const documented = new Set(
    Object.entries(paths).flatMap(([p, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`),
    ),
  );
  for (const r of routes) {
    const key = `${r.method} ${openApiPath(r.url)}`;
    if (!documented.delete(key))
      throw new Error(`${key} is a use-case route the OpenAPI document lacks`);
  }
  const others = [...documented, ...HIDDEN_ROUTES].map((key) => {
    const [method, path] = key.split(' ') as [string, string];
    const url = path.replace(/\{(\w+)\}/g, ':$1');
    return { name: `${method} ${url}`, method, url, kind: 'other' as const };
  });
  const mcp: FuzzRoute = { name: 'POST /mcp', method: 'POST', url: '/mcp', kind: 'mcp' };
  return [...routes, ...others, mcp];
}

const URIS = ['https://example.com/a', 'https://docs.example.org/guide', 'doc://handbook/7'];
const TOOL_NAMES = ['search', 'calendar', 'weather'];
const ISO = fc
  .date({
    min: new Date('2020-01-01T00:00:00Z'),
    max: new Date('2035-01-01T00:00:00Z'),
    noInvalidDate: true,
  })
  .map((d) => d.toISOString());

const ref = (pool: PoolName) => fc.nat().map((n) => new Ref(pool, n));
/** Owner A (whose keys the run holds) most of the time, then B and C, then any other. */
const OWNER = fc.oneof(
  { weight: 6, arbitrary: fc.constant(new Ref('owner', 0)) },
  { weight: 2, arbitrary: fc.constant(new Ref('owner', 1)) },
  { weight: 1, arbitrary: fc.constant(new Ref('owner', 2)) },
  { weight: 2, arbitrary: fc.nat().map((n) => new Ref('owner', 3 + n)) },
);
const csvOf = (values: readonly string[]) =>
  fc
    .uniqueArray(fc.constantFrom(...values), { minLength: 1, maxLength: 3 })
    .map((v) => v.join(','));

/** The memory input schema, for import lines (each line is one, as JSON). */
const MEMORY_INPUT = toJsonSchema(MemoryInputSchema)!;

/**
 * Field hints, by name: a field the schema only calls a string is better
 * filled with something that exists (an owner, a memory written earlier,
 * a session) or reads as text the gate keeps. Any field not named here
 * gets what its schema says; so does a hinted one part of the time.
 */
function hintFor(route: FuzzRoute): Hint {
  const keysRoute = route.url.startsWith('/v1/keys');
  const hint: Hint = (path, schema) => {
    const name = path.at(-1);
    const isString =
      schema.type === 'string' && schema.enum === undefined && schema.const === undefined;
    const or = (a: fc.Arbitrary<unknown>, weight = 4) =>
      fc.oneof({ weight, arbitrary: a }, { weight: 1, arbitrary: arbitraryOf(schema) });
    if (name === 'lines' && isString)
      return fc.oneof(
        { weight: 5, arbitrary: arbitraryOf(MEMORY_INPUT, hint).map((v) => new AsJson(v)) },
        { weight: 1, arbitrary: fc.constantFrom('', '   ', '{', 'null', '[]', '{"kind":"fact"}') },
      );
    if (!isString) {
      // Derived writes need sources that exist: mostly none, so most writes can be kept.
      if (name === 'derivedFrom' && schema.type === 'array')
        return fc.oneof(
          { weight: 5, arbitrary: fc.constant([]) },
          { weight: 1, arbitrary: fc.array(or(ref('memory')), { minLength: 1, maxLength: 3 }) },
        );
      // The gate refuses high sensitivity: mostly the others.
      if (name === 'sensitivity' && schema.enum)
        return fc.oneof(
          { weight: 6, arbitrary: fc.constantFrom('low', 'medium') },
          { weight: 1, arbitrary: fc.constantFrom(...schema.enum) },
        );
      if (name === 'ttlSeconds')
        return fc.oneof(
          fc.integer({ min: 3600, max: 400 * 86400 }),
          fc.integer({ min: -5, max: 4000 }),
        );
      return undefined;
    }
    switch (name) {
      case 'ownerId':
        return or(OWNER, 8);
      case 'owners':
        return OWNER;
      case 'id':
        return keysRoute ? or(ref('apiKey')) : or(ref('memory'));
      case 'contentHashes':
        return or(fc.stringMatching(/^[0-9a-f]{64}$/));
      case 'ids':
      case 'memoryId':
      case 'derivedFrom':
        return or(ref('memory'));
      case 'sessionId':
        return or(ref('session'));
      case 'key':
        return or(ref('kvKey'));
      case 'seq':
        return or(fc.nat(40).map(String));
      case 'text':
      case 'query':
        return or(
          sentence(schema.maxLength ?? 400).filter((s) => s.length >= 8),
          6,
        );
      case 'kind':
      case 'kinds':
        return or(csvOf(MEMORY_KINDS));
      case 'authority':
        return or(csvOf(AUTHORITIES));
      case 'uri':
      case 'sourceUri':
        return or(fc.constantFrom(...URIS));
      case 'tool':
        return or(fc.constantFrom(...TOOL_NAMES));
      case 'expiresIn':
        return fc.constantFrom('90d', '12h', '1s', '0d', '-1d', 'forever', '', '1e9d', '١d');
      default:
        if (path.at(-2) === 'tool' && name === 'name') return or(fc.constantFrom(...TOOL_NAMES));
        if (/(After|Before|before|At)$/.test(name ?? '')) return or(ISO);
        return undefined;
    }
  };
  return hint;
}

/** One fuzz case. */
export interface FuzzCase {
  route: FuzzRoute;
  variant: Variant;
  credential: CredentialName;
  /** The Authorization header of a `malformed` credential. */
  malformed?: string;
  method: string;
  params: Record<string, unknown>;
  query: Record<string, unknown> | Raw | undefined;
  /** Undefined: no body. */
  body: unknown;
  /** Undefined: JSON's (when there is a body); null: no Content-Type header. */
  contentType?: string | null;
  /** A key written twice into the body's text: its first value, then the body's own (or the reverse). */
  duplicate?: { key: string; value: unknown; first: boolean };
  /** A prototype-polluting key put into the body's text. */
  proto?: string;
  /** Appended to the path (routes without parameters get their path tricks here). */
  suffix?: string;
  idempotencyKey?: string;
  trick?: WireTrick;
}

const VARIANT = fc.oneof(
  { weight: 40, arbitrary: fc.constant<Variant>('valid') },
  ...VARIANTS.filter((v) => v !== 'valid').map((v) => ({
    weight: v === 'wrong-type' || v === 'unicode' || v === 'path-trick' ? 6 : 4,
    arbitrary: fc.constant<Variant>(v),
  })),
);
const CREDENTIAL = fc.oneof(
  ...(
    [
      ['operator', 35],
      ['user', 20],
      ['agent', 7],
      ['tool', 5],
      ['analyst', 5],
      ['other-owner', 8],
      ['revoked', 5],
      ['malformed', 8],
      ['none', 7],
    ] as const
  ).map(([c, weight]) => ({ weight, arbitrary: fc.constant<CredentialName>(c) })),
);

/** An owner's profile resource, as MCP names it. */
const profileUri = (owner: string) => `keepgraph://owners/${escape(owner)}/profile`;

/** A JSON-RPC message for POST /mcp: read-only tool calls from the tools' own schemas, and the rest of the protocol. */
function mcpMessage(): fc.Arbitrary<unknown> {
  const readTools = TOOLS.filter((t) => t.hints.readOnlyHint);
  const ownerHint = hintFor({ name: 'mcp', method: 'POST', url: '/mcp', kind: 'mcp' });
  const call = fc.oneof(
    ...readTools.map((t) => {
      const schema = toJsonSchema(t.input)!;
      const withOwner: JsonSchema = {
        ...schema,
        properties: { ...schema.properties, ownerId: { type: 'string' } },
      };
      return arbitraryOf(withOwner, ownerHint).map((args) => ({
        method: 'tools/call',
        params: { name: t.name, arguments: args },
      }));
    }),
  );
  const other = fc.oneof(
    fc.constantFrom(
      { method: 'tools/list' },
      { method: 'ping' },
      { method: 'resources/list' },
      { method: 'resources/templates/list' },
      { method: 'prompts/list' },
      { method: 'no/such/method' },
      {
        method: 'initialize',
        params: {
          protocolVersion: '2025-03-26',
          capabilities: {},
          clientInfo: { name: 'fuzz', version: '1' },
        },
      },
    ),
    fc
      .oneof(
        OWNER.map((o) => new Ref(o.pool, o.n, profileUri)),
        fc.constantFrom(
          'keepgraph://owners/%/profile',
          'keepgraph://owners/%zz/profile',
          'keepgraph://owners//profile',
          'file:///etc/passwd',
          '',
        ),
      )
      .map((uri) => ({ method: 'resources/read', params: { uri } })),
    fc
      .string({ maxLength: 30 })
      .map((name) => ({ method: 'tools/call', params: { name, arguments: {} } })),
  );
  return fc
    .tuple(fc.oneof({ weight: 3, arbitrary: call }, { weight: 2, arbitrary: other }), fc.nat(1000))
    .map(([m, id]) => ({ jsonrpc: '2.0', id, ...(m as object) }));
}

/** The places in a case a mutation may touch: the body, else the query, else the parameters. */
function target(c: FuzzCase): 'body' | 'query' | 'params' {
  if (c.body !== undefined) return 'body';
  if (Object.keys(c.params).length > 0 && (c.query === undefined || c.query instanceof Raw))
    return 'params';
  return 'query';
}

const QUERY_TRICKS = [
  'limit=1&limit=2',
  'limit=NaN',
  'limit=1e400',
  'limit=-1',
  'limit=0x10',
  'limit=%',
  'limit=%zz',
  'limit=%20',
  `limit=${'9'.repeat(400)}`,
  'after=%00',
  '__proto__[x]=1',
  'constructor[prototype][x]=1',
  'kind=fact,,,episode',
  'kind=',
  'a[]=1&a[]=2',
  '&&&',
  '=',
  'ownerId=*',
  'ownerId=%2E%2E',
  'includeSuperseded=TRUE',
  'limit= 5',
  'afterSeq=-0',
  'toleranceMs=1e3',
  'unknown=1',
];

/** Apply a case's variant: the arbitrary of the mutated case. */
function mutate(c: FuzzCase, pick: number): fc.Arbitrary<FuzzCase> {
  const where = target(c);
  const value = (c as unknown as Record<string, unknown>)[where] ?? {};
  const paths = pathsOf(value).filter((p) => where !== 'params' || p.length > 0);
  const path = paths.length > 0 ? nth(paths, pick) : [];
  const strings = paths.filter(
    (p) => typeof at(value, p) === 'string' || at(value, p) instanceof Ref,
  );
  const objects = paths.filter((p) => isPlainObject(at(value, p)));
  const set = (v: unknown) => fc.constant({ ...c, [where]: v });
  const paramNames = Object.keys(c.params);
  switch (c.variant) {
    case 'valid':
      return fc.constant(c);
    case 'wrong-type':
      return fc
        .constantFrom(...WRONG_TYPES)
        .map((w) => ({ ...c, [where]: replaceAt(value, path, w) }));
    case 'extra-key': {
      const obj = objects.length > 0 ? nth(objects, pick) : [];
      return fc
        .tuple(
          fc.constantFrom(
            'unknown',
            'ownerId',
            'role',
            'authority',
            'writtenBy',
            'principal',
            'id',
            'createdAt',
            '$where',
            'owners',
          ),
          fc.jsonValue({ maxDepth: 1 }),
        )
        .map(([k, v]) => ({
          ...c,
          [where]: replaceAt(value, obj, { ...(at(value, obj) as object), [k]: v }),
        }));
    }
    case 'missing-key':
      return set(paths.length > 1 ? removeAt(value, nth(paths.slice(1), pick)) : {});
    case 'unicode': {
      const p = strings.length > 0 ? nth(strings, pick) : path;
      return fc.tuple(fc.constantFrom(...UNICODE_EDGES), fc.boolean()).map(([u, append]) => {
        const old = at(value, p);
        const s = append && typeof old === 'string' ? `${old}${u}` : u;
        return { ...c, [where]: replaceAt(value, p, s) };
      });
    }
    case 'nul': {
      const p = strings.length > 0 ? nth(strings, pick) : path;
      const old = at(value, p);
      const s =
        typeof old === 'string'
          ? `${old.slice(0, pick % (old.length + 1))}\u0000${old.slice(pick % (old.length + 1))}`
          : '\u0000';
      return set(replaceAt(value, p, s));
    }
    case 'path-trick':
      if (paramNames.length === 0)
        return fc.constantFrom(...PATH_TRICKS).map((t) => ({ ...c, suffix: `/${t}` }));
      return fc
        .constantFrom(...PATH_TRICKS)
        .map((t) => ({ ...c, params: { ...c.params, [nth(paramNames, pick)]: new Raw(t) } }));
    case 'huge':
      if (where === 'body') return HUGE.map((h) => ({ ...c, body: replaceAt(value, path, h) }));
      if (where === 'query' && paths.length > 1)
        return fc.constant<FuzzCase>({
          ...c,
          query: replaceAt(value, nth(paths.slice(1), pick), new Filler('q', 10_000)) as Record<
            string,
            unknown
          >,
        });
      if (paramNames.length > 0)
        return fc.constant({
          ...c,
          params: { ...c.params, [nth(paramNames, pick)]: new Filler('x', 4_000) },
        });
      return HUGE.map((h) => ({ ...c, body: h }));
    case 'deep':
      return fc
        .tuple(DEPTHS, fc.constantFrom<'array' | 'object'>('array', 'object'))
        .map(([d, shape]) =>
          where === 'body'
            ? { ...c, body: replaceAt(value, path, new Deep(d, shape)) }
            : { ...c, body: new Deep(d, shape) },
        );
    case 'duplicate-keys': {
      const keys = isPlainObject(c.body) ? Object.keys(c.body) : [];
      if (keys.length === 0)
        return fc.constant({
          ...c,
          body: { ...(isPlainObject(c.body) ? c.body : {}) },
          duplicate: { key: 'a', value: 1, first: true },
        });
      return fc
        .tuple(fc.constantFrom(...WRONG_TYPES, 'x'), fc.boolean())
        .map(([v, first]) => ({ ...c, duplicate: { key: nth(keys, pick), value: v, first } }));
    }
    case 'proto-keys':
      return fc
        .constantFrom(
          '"__proto__":{"role":"operator","owners":"all"}',
          '"constructor":{"prototype":{"role":"operator"}}',
          '"__proto__":null',
          '"\\u005f_proto__":{"x":1}',
        )
        .map((p) => ({ ...c, body: c.body ?? {}, proto: p }));
    case 'content-type':
      return fc
        .constantFrom(...CONTENT_TYPES)
        .map((t) => ({ ...c, body: c.body ?? {}, contentType: t }));
    case 'wire':
      return fc.constantFrom(...WIRE_TRICKS).map((trick) =>
        trick === 'raw-path' && paramNames.length > 0
          ? {
              ...c,
              trick,
              params: {
                ...c.params,
                [nth(paramNames, pick)]: new Raw(nth(RAW_PATH_TRICKS, pick)),
              },
            }
          : { ...c, trick, body: c.body ?? {} },
      );
    case 'non-object':
      return fc
        .constantFrom<unknown>(
          null,
          [],
          'x',
          1,
          true,
          new Raw(''),
          new Raw(' '),
          new Raw('\ufeff{}'),
          new Raw('{}garbage'),
          new Raw('{"a":1}{"b":2}'),
          new Raw('NaN'),
          new Raw('[1,2'),
          new Raw('\u0000'),
          new Raw('{"a":1e999999}'),
          new Raw('{"a":"\\ud800"}'),
          new Raw('{"a":"\\u0000"}'),
        )
        .map((b) => ({ ...c, body: b }));
    case 'query-tricks':
      return fc.constantFrom(...QUERY_TRICKS).map((q) => ({ ...c, query: new Raw(q) }));
    case 'method':
      return fc
        .constantFrom(
          'GET',
          'POST',
          'PUT',
          'PATCH',
          'DELETE',
          'HEAD',
          'OPTIONS',
          'PROPFIND',
          'SEARCH',
        )
        .map((m) => ({ ...c, method: m }));
    case 'idempotency':
      return fc
        .oneof(
          fc.constantFrom('fuzz-1', 'fuzz-2', 'fuzz-3'),
          fc
            .string({ unit: 'binary-ascii', minLength: 1, maxLength: 40 })
            .filter((s) => /^[\x21-\x7e]+$/.test(s)),
          fc.constantFrom('', ' ', 'é', 'x'.repeat(256), 'a b', '東京'),
        )
        .map((k) => ({ ...c, idempotencyKey: k }));
  }
}

function at(value: unknown, path: readonly (string | number)[]): unknown {
  let v = value;
  for (const k of path) v = (v as Record<string | number, unknown> | undefined)?.[k];
  return v;
}

/** The arbitrary of one route's cases. */
function routeCases(route: FuzzRoute): fc.Arbitrary<FuzzCase> {
  const hint = hintFor(route);
  const gen = (s: JsonSchema | undefined) => (s ? arbitraryOf(s, hint) : fc.constant(undefined));
  const params =
    route.params !== undefined
      ? gen(route.params)
      : fc.constant(
          Object.fromEntries(
            [...route.url.matchAll(/(?<!:):(\w+)/g)].map((m) => [m[1], 'index.html']),
          ),
        );
  const body = route.kind === 'mcp' ? mcpMessage() : gen(route.body);
  return fc
    .record({
      variant: VARIANT,
      credential: CREDENTIAL,
      malformed: fc.constantFrom(...MALFORMED_AUTH),
      params,
      query: gen(route.query),
      body,
      pick: fc.nat(),
    })
    .chain(({ pick, params: p, query, body: b, ...rest }) =>
      mutate(
        {
          ...rest,
          route,
          method: route.method,
          params: (p ?? {}) as Record<string, unknown>,
          query: query as Record<string, unknown> | undefined,
          body: b,
        },
        pick,
      ),
    );
}

/**
 * Whether a route writes memories: its use-case is open to the roles that
 * write and closed to the analyst, who reads (the registry's WRITERS).
 */
export function writes(route: FuzzRoute): boolean {
  const roles = route.useCase
    ? (USE_CASES[route.useCase as UseCaseName]?.roles as readonly string[])
    : [];
  return roles.includes('tool') && !roles.includes('analyst');
}

/**
 * Cases over every route: the writing routes four times as often as the
 * others, so that the store ends up holding enough accepted writes for
 * the export to be worth comparing.
 */
export function fuzzCases(routes: readonly FuzzRoute[]): fc.Arbitrary<FuzzCase> {
  return fc.oneof(...routes.map((r) => ({ weight: writes(r) ? 4 : 1, arbitrary: routeCases(r) })));
}

/** How a case is sent: its credentials' headers, and the pools its references name. */
export interface WireContext {
  resolve: Resolve;
  authorization(c: FuzzCase): string | undefined;
}

/** The case's request as it goes on the wire. */
export function toWire(
  c: FuzzCase,
  ctx: WireContext,
): { request: WireRequest; bodyText: string | null } {
  const resolve: Resolve = (r) => ctx.resolve(r);
  const path =
    c.route.url.replace(/::|:(\w+)/g, (m, name: string | undefined) =>
      m === '::' ? ':' : segment(c.params[name!], resolve),
    ) + (c.suffix ?? '');
  let query = '';
  if (c.query instanceof Raw) query = c.query.text;
  else if (!isPlainObject(c.query)) query = c.query === undefined ? '' : segment(c.query, resolve);
  else
    query = Object.entries(c.query)
      .filter(([, v]) => v !== undefined)
      .flatMap(([k, v]) =>
        (Array.isArray(v) ? v : [v]).map((x) => `${escape(k)}=${segment(x, resolve)}`),
      )
      .join('&');
  const headers: Record<string, string> = {};
  const auth = ctx.authorization(c);
  if (auth !== undefined) headers.authorization = auth;
  if (c.route.kind === 'mcp') headers.accept = 'application/json, text/event-stream';
  if (c.idempotencyKey !== undefined) headers['idempotency-key'] = c.idempotencyKey;
  let bodyText: string | null = null;
  if (c.body !== undefined) {
    const json = (v: unknown) => jsonText(v, resolve);
    bodyText = json(c.body);
    if (c.duplicate && bodyText.startsWith('{')) {
      const extra = `${JSON.stringify(c.duplicate.key)}:${json(c.duplicate.value)}`;
      bodyText = c.duplicate.first
        ? `{${extra}${bodyText.length > 2 ? ',' : ''}${bodyText.slice(1)}`
        : `${bodyText.slice(0, -1)}${bodyText.length > 2 ? ',' : ''}${extra}}`;
    }
    if (c.proto && bodyText.startsWith('{'))
      bodyText = `{${c.proto}${bodyText.length > 2 ? ',' : ''}${bodyText.slice(1)}`;
    const type = c.contentType === undefined ? 'application/json' : c.contentType;
    if (type !== null) headers['content-type'] = type;
  }
  return {
    request: {
      method: c.method,
      path: query === '' ? path : `${path}?${query}`,
      headers,
      body: bodyText === null ? null : Buffer.from(bodyText, 'utf8'),
      ...(c.trick !== undefined && { trick: c.trick }),
    },
    bodyText,
  };
}
