#!/usr/bin/env bash
# Retrieval quality as the product ships, in one run on one machine: locomo-dev
# through `keepgraph bench recall --consolidate` (each owner's background jobs
# run to idle; raw and consolidated side by side) on SQLite and on Neo4j, then
# BM25 alone and mem0 over the same dataset, scored by the same harness; and
# where consolidation still loses evidence (bench/consolidation-loss.ts).
#   bash bench/run-recall.sh [DATASET]      (default ../shared/datasets/locomo-dev.json)
# Neo4j: NEO4J_URI if set, else the test server (scripts/neo4j-test-server.sh)
# on a port of its own, stopped afterwards. Results land in
# bench/results/recall-<UTC time>/ (not committed). ~10 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/results-dir.sh
DATASET="${1:-../shared/datasets/locomo-dev.json}"
open_results_dir recall "commit $(git rev-parse --short HEAD)"

recall() { # name, extra flags...
  local name="$1"
  shift
  echo "== locomo: $name" >&2
  pnpm -s keepgraph --data "$OUT/data-$name" bench recall --dataset "$DATASET" \
    --results "$OUT/locomo-$name.jsonl" "$@" >"$OUT/locomo-$name.txt" 2>"$OUT/locomo-$name.log"
  grep -E "^overall|latency|derived memories|time to idle|digest" "$OUT/locomo-$name.txt" >&2
  rm -rf "$OUT/data-$name"
}

recall sqlite --consolidate --store sqlite

started_neo4j=0
if [ -z "${NEO4J_URI:-}" ]; then
  port=17699
  NEO4J_TEST_JAVA_OPTS="${NEO4J_TEST_JAVA_OPTS:--Xmx2g}" \
    bash scripts/neo4j-test-server.sh start --port "$port" >"$OUT/neo4j-start.txt"
  export NEO4J_URI="bolt://127.0.0.1:$port"
  started_neo4j=1
fi
recall neo4j --consolidate --store neo4j
if [ "$started_neo4j" = 1 ]; then bash scripts/neo4j-test-server.sh stop --port "$port" >/dev/null; fi

recall bm25 --baseline bm25 --store sqlite

echo "== locomo: mem0" >&2
pnpm -s tsx bench/peer-recall.ts --dataset "$DATASET" --results "$OUT/locomo-mem0.jsonl" \
  --summary "$OUT/peer-recall-mem0.json" >"$OUT/locomo-mem0.txt" 2>"$OUT/locomo-mem0.log"
grep -E "^overall|latency" "$OUT/locomo-mem0.txt" >&2

echo "== where consolidation loses evidence" >&2
pnpm -s tsx bench/consolidation-loss.ts --dataset "$DATASET" --out "$OUT/consolidation-loss.json" \
  >/dev/null 2>"$OUT/consolidation-loss.log"
grep -E '"(evidenceLostFromRawTopK|evidenceGainedIntoTopK|shareOfTopKSlotsFromDerived|meanTurnsPerDerivedResult)"' \
  "$OUT/consolidation-loss.json" >&2

close_results_dir
