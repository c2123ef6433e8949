// loadServerConfig: defaults, environment, overrides, and one error that
// lists every invalid setting by its variable name.
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY_PATH } from '@keepgraph/core/policy';
import { DEFAULT_MODEL_ID } from '@keepgraph/embedder';
import { loadServerConfig, redisConnection, storeSelection } from '@keepgraph/runtime';

describe('loadServerConfig', () => {
  it('applies the defaults to an empty environment', () => {
    expect(loadServerConfig({})).toEqual({
      dataDir: resolve(process.cwd(), '.data'),
      host: '127.0.0.1',
      port: 7411,
      policyPath: DEFAULT_POLICY_PATH,
      modelId: DEFAULT_MODEL_ID,
      modelsDir: undefined,
      sweepIntervalMs: undefined,
      store: 'sqlite',
      neo4jUri: undefined,
      neo4jUser: undefined,
      neo4jPassword: undefined,
      neo4jDatabase: undefined,
      redisUrl: undefined,
      redisPrefix: 'keepgraph',
      auditSecret: undefined,
      jwtSecret: undefined,
      jwksUrl: undefined,
      jwtIssuer: undefined,
      jwtAudience: undefined,
      jwtRoleClaim: 'keepgraph_role',
      jwtOwnersClaim: 'keepgraph_owners',
      rateLimitPerMinute: 1200,
      authFailuresPerMinute: 120,
      corsOrigins: undefined,
    });
  });

  it('reads Redis (server mode) and refuses a URL that is not redis://', () => {
    const c = loadServerConfig({ KEEPGRAPH_REDIS_URL: 'redis://:pw@10.0.0.5:6380/2' });
    expect(c.redisUrl).toBe('redis://:pw@10.0.0.5:6380/2');
    expect(redisConnection(c.redisUrl!)).toEqual({
      host: '10.0.0.5',
      port: 6380,
      password: 'pw',
      db: 2,
      maxRetriesPerRequest: null,
    });
    expect(() => loadServerConfig({ KEEPGRAPH_REDIS_URL: 'http://x' })).toThrow(
      /KEEPGRAPH_REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL/,
    );
  });

  it('selects Neo4j from KEEPGRAPH_STORE and NEO4J_* variables', () => {
    const neo4j = {
      uri: 'bolt://db.internal:7687',
      user: 'neo4j',
      password: 's3cret',
      database: 'memories',
    };
    const c = loadServerConfig({
      KEEPGRAPH_STORE: 'neo4j',
      NEO4J_URI: neo4j.uri,
      NEO4J_USER: neo4j.user,
      NEO4J_PASSWORD: neo4j.password,
      NEO4J_DATABASE: neo4j.database,
    });
    // Each variable reaches the store selection unchanged.
    expect(storeSelection(c)).toEqual({ kind: 'neo4j', ...neo4j });
    expect(storeSelection(loadServerConfig({}))).toEqual({ kind: 'sqlite' });
  });

  it('refuses Neo4j without a URI, a malformed URI, and a user without a password', () => {
    expect(() => loadServerConfig({ KEEPGRAPH_STORE: 'neo4j' })).toThrow(/NEO4J_URI: is required/);
    expect(() => loadServerConfig({ KEEPGRAPH_STORE: 'neo4j', NEO4J_URI: 'http://x' })).toThrow(
      /NEO4J_URI: must be a bolt/,
    );
    expect(() => loadServerConfig({ NEO4J_URI: 'bolt://x:1', NEO4J_USER: 'u' })).toThrow(
      /NEO4J_PASSWORD: is required/,
    );
  });

  it('reads the environment, treating empty strings as unset', () => {
    const c = loadServerConfig({
      KEEPGRAPH_DATA_DIR: '/tmp/kg',
      KEEPGRAPH_PORT: '8080',
      KEEPGRAPH_MODEL: 'all-minilm-l6-v2-q',
      KEEPGRAPH_MODELS_DIR: '/opt/models',
      KEEPGRAPH_SWEEP_INTERVAL_MS: '0',
      KEEPGRAPH_HOST: '',
    });
    expect(c).toMatchObject({
      dataDir: '/tmp/kg',
      port: 8080,
      modelId: 'all-minilm-l6-v2-q',
      modelsDir: '/opt/models',
      sweepIntervalMs: 0,
      host: '127.0.0.1',
    });
  });

  it('lets overrides win over the environment, and ignores undefined ones', () => {
    const c = loadServerConfig(
      { KEEPGRAPH_PORT: '8080', KEEPGRAPH_HOST: '0.0.0.0' },
      { port: 0, host: undefined },
    );
    expect(c.port).toBe(0);
    expect(c.host).toBe('0.0.0.0');
  });

  it('configures JWTs only with an issuer and an audience, from a secret or a JWKS, not both', () => {
    const secret = 'x'.repeat(32);
    expect(() => loadServerConfig({ KEEPGRAPH_JWT_SECRET: secret })).toThrow(
      /KEEPGRAPH_JWT_ISSUER: is required with JWT authentication/,
    );
    expect(() => loadServerConfig({ KEEPGRAPH_JWT_SECRET: 'short' })).toThrow(/at least 32/);
    expect(() =>
      loadServerConfig({
        KEEPGRAPH_JWT_SECRET: secret,
        KEEPGRAPH_JWKS_URL: 'https://idp.example/jwks',
        KEEPGRAPH_JWT_ISSUER: 'i',
        KEEPGRAPH_JWT_AUDIENCE: 'a',
      }),
    ).toThrow(/not both/);
    const c = loadServerConfig({
      KEEPGRAPH_JWKS_URL: 'https://idp.example/jwks',
      KEEPGRAPH_JWT_ISSUER: 'https://idp.example/',
      KEEPGRAPH_JWT_AUDIENCE: 'keepgraph',
      KEEPGRAPH_CORS_ORIGINS: 'https://a.example, https://b.example',
    });
    expect(c).toMatchObject({
      jwksUrl: 'https://idp.example/jwks',
      jwtRoleClaim: 'keepgraph_role',
      jwtOwnersClaim: 'keepgraph_owners',
      corsOrigins: ['https://a.example', 'https://b.example'],
      rateLimitPerMinute: 1200,
    });
    expect(loadServerConfig({}).corsOrigins).toBeUndefined();
  });

  it('lists every problem, each named by its variable', () => {
    let message = '';
    try {
      loadServerConfig({
        KEEPGRAPH_PORT: 'eighty',
        KEEPGRAPH_ROLE: 'root',
        KEEPGRAPH_STORE: 'mongo',
        KEEPGRAPH_SWEEP_INTERVAL_MS: '-1',
        KEEPGRAPH_MODEL: 'gpt-9',
      });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain('KEEPGRAPH_PORT');
    expect(message).toMatch(
      /KEEPGRAPH_ROLE: no longer read: the role comes from the API key or JWT/,
    );
    expect(message).toMatch(/KEEPGRAPH_STORE: must be one of sqlite, neo4j \(got "mongo"\)/);
    expect(message).toContain('KEEPGRAPH_SWEEP_INTERVAL_MS');
    expect(message).toContain('KEEPGRAPH_MODEL');
  });

  it('refuses a port out of range', () => {
    expect(() => loadServerConfig({ KEEPGRAPH_PORT: '70000' })).toThrow(/KEEPGRAPH_PORT/);
  });
});
