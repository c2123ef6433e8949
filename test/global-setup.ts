// Vitest global setup: makes sure the services the tests talk to are up,
// once per run. Neo4j: NEO4J_URI if given, otherwise the embedded test
// server (tools/neo4j-test-server) is built if needed, started on a port of
// its own, and stopped afterwards. Tests read the URI with inject('neo4jUri').
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    neo4jUri: string;
    neo4jUser: string;
    neo4jPassword: string;
  }
}

const root = resolve(import.meta.dirname, '..');
const TEST_PORT = process.env.KEEPGRAPH_TEST_NEO4J_PORT ?? '17687';

function script(...args: string[]): string {
  return execFileSync('bash', [resolve(root, 'scripts/neo4j-test-server.sh'), ...args], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

export default function setup(project: TestProject): (() => void) | undefined {
  const given = process.env.NEO4J_URI;
  project.provide('neo4jUser', process.env.NEO4J_USER ?? '');
  project.provide('neo4jPassword', process.env.NEO4J_PASSWORD ?? '');
  if (given) {
    project.provide('neo4jUri', given);
    return undefined;
  }
  const out = script('start', '--port', TEST_PORT);
  const uri = /NEO4J_URI=(\S+)/.exec(out)?.[1];
  if (!uri) throw new Error(`the Neo4j test server did not report its URI:\n${out}`);
  project.provide('neo4jUri', uri);
  return () => {
    script('stop', '--port', TEST_PORT);
  };
}
