#!/usr/bin/env bash
# installed-node22.sh: the install-from-tarball test (test/e2e/installed.test.ts)
# on Node 22, once, by hand: the test command runs it on the machine's Node 20.
# Node 22 comes from the npm registry's `node` package (it ships the binary
# and its headers); better-sqlite3 has no prebuilt binary reachable here for
# Node 22's ABI, so npm compiles it against those headers (npm_config_nodedir).
#
#   bash scripts/installed-node22.sh [NODE_VERSION]   (default 22)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="${1:-22}"
dir="$root/.tmp/node$version"
if [[ ! -x "$dir/node_modules/node/bin/node" ]]; then
  mkdir -p "$dir"
  echo '{ "name": "node-runtime", "private": true }' >"$dir/package.json"
  (cd "$dir" && npm install --no-audit --no-fund "node@$version" >/dev/null)
fi
nodedir="$(cd "$dir/node_modules/node/node_modules/node-linux-"* && pwd)"
export PATH="$dir/node_modules/node/bin:$PATH"
export npm_config_nodedir="$nodedir"
echo "installed-node22: $(node --version) (headers from $nodedir)"
cd "$root"
exec node node_modules/vitest/vitest.mjs run test/e2e/installed.test.ts
