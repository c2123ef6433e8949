// The version `keepgraph --version` reports: its package's. A built package
// has it compiled in (scripts/bundle-cli.ts defines
// process.env.KEEPGRAPH_PACKAGE_VERSION); from a checkout it is read from
// packages/cli/package.json, so the two never disagree.
import { readFileSync } from 'node:fs';

export const KEEPGRAPH_VERSION: string =
  process.env.KEEPGRAPH_PACKAGE_VERSION ??
  (
    JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    }
  ).version;
