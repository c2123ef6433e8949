#!/usr/bin/env bash
# README command 2: install and start what the tests need, then run every
# test (unit, store conformance, end to end) and the static checks.
# Services are started here when they are not already running, and stopped
# again on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh

echo "[test] typecheck"
pnpm -s typecheck
echo "[test] lint"
pnpm -s lint

mkdir -p .tmp
status=0
pnpm -s vitest run --reporter=default --reporter=json --outputFile=.tmp/vitest-report.json "$@" || status=$?
node scripts/test-summary.mjs .tmp/vitest-report.json || true
exit $status
