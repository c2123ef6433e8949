#!/usr/bin/env bash
# Store benchmark run behind bench/README.md's table: SQLite and Neo4j at 10k
# and 100k memories (100 owners; one owner queried), the Neo4j vector-search
# crossover, and ingest through the engine with the real model. Neo4j is the
# test server's jar with a larger heap and page cache, fresh for each size.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/results .tmp/neo4j
JAR=tools/neo4j-test-server/target/neo4j-test-server.jar
[ -f "$JAR" ] || bash scripts/neo4j-test-server.sh build
PORT=17690
neo4j_fresh() {
  [ -n "${NEO_PID:-}" ] && { kill "$NEO_PID"; wait "$NEO_PID" 2>/dev/null || true; }
  rm -rf .tmp/neo4j/bench
  java -Xms1g -Xmx3g -jar "$JAR" --port $PORT --data .tmp/neo4j/bench --page-cache-mb 1536 > .tmp/neo4j/bench.log 2>&1 &
  NEO_PID=$!
  for _ in $(seq 1 120); do grep -q NEO4J_READY .tmp/neo4j/bench.log && return; sleep 1; done
  echo "neo4j did not start" >&2; exit 1
}
trap '[ -n "${NEO_PID:-}" ] && kill "$NEO_PID"' EXIT
export NEO4J_URI=bolt://127.0.0.1:$PORT
for n in 10000 100000; do
  pnpm -s tsx bench/perf-stores.ts --store sqlite --total $n --queries 200 > bench/results/log-sqlite-$n.txt 2>&1
  neo4j_fresh
  pnpm -s tsx bench/perf-stores.ts --store neo4j --total $n --queries 200 > bench/results/log-neo4j-$n.txt 2>&1
done
# The crossover runs on top of the 100k database: 200k memories in all.
pnpm -s tsx bench/vector-crossover.ts --total 100000 > bench/results/log-crossover.txt 2>&1
pnpm -s tsx bench/perf-embedded.ts --n 10000 --queries 200 > bench/results/log-embedded.txt 2>&1
echo "bench done"
