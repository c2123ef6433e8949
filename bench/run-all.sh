#!/usr/bin/env bash
# The one run behind bench/README.md's issue-4 tables, on one machine, in one
# go: retrieval quality on locomo-dev (KeepGraph, BM25 only, vector only,
# mem0), the performance benchmark (`pnpm bench`, SQLite, small), and recall
# latency side by side with mem0 at 1k / 10k / 100k memories in one owner.
#   bash bench/run-all.sh [DATASET]        (default ../shared/datasets/locomo-dev.json)
# Everything lands in bench/results/run-<UTC time>/ (not committed); each
# step's summary is printed as it finishes. Takes ~40 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/results-dir.sh
DATASET="${1:-../shared/datasets/locomo-dev.json}"
open_results_dir run

for retriever in engine bm25 vector; do
  echo "== locomo: $retriever" >&2
  pnpm -s keepgraph --data "$OUT/data-$retriever" bench recall --dataset "$DATASET" \
    --results "$OUT/locomo-$retriever.jsonl" --baseline "$retriever" \
    >"$OUT/locomo-$retriever.txt" 2>"$OUT/locomo-$retriever.log"
  grep -E "overall|latency" "$OUT/locomo-$retriever.txt" >&2
  rm -rf "$OUT/data-$retriever"
done

echo "== locomo: mem0" >&2
pnpm -s tsx bench/peer-recall.ts --dataset "$DATASET" --results "$OUT/locomo-mem0.jsonl" \
  >"$OUT/locomo-mem0.txt" 2>"$OUT/locomo-mem0.log"
grep -E "overall|latency" "$OUT/locomo-mem0.txt" >&2
cp bench/results/peer-recall-mem0.json "$OUT/" 2>/dev/null || true

echo "== pnpm bench (sqlite, small)" >&2
pnpm -s bench --out "$OUT/bench-sqlite-small.json" >"$OUT/bench-sqlite-small.md" 2>"$OUT/bench-sqlite-small.log"
tail -n 5 "$OUT/bench-sqlite-small.md" >&2

echo "== recall latency beside mem0" >&2
pnpm -s tsx bench/peer-latency.ts --sizes 1000,10000,100000 --queries 100 \
  --out "$OUT/peer-latency.json" >"$OUT/peer-latency.md" 2>"$OUT/peer-latency.log"
cat "$OUT/peer-latency.md" >&2

close_results_dir
