#!/usr/bin/env bash
# README command 1: install what is needed and start KeepGraph on the
# embedded default (SQLite file store in ./.data, local embedding model).
# Extra arguments go to `keepgraph start` (e.g. --port 7411 --data DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
exec pnpm -s keepgraph start "$@"
