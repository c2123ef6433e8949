# Sourced by the bench/run-*.sh scripts, from the repository root: the one
# results folder a run writes, named by its UTC start so runs never overwrite
# each other, with the load average at both ends (figures are only compared
# within one run on these shared machines).

# open_results_dir PREFIX [NOTE]: sets OUT to bench/results/PREFIX-<UTC time>.
open_results_dir() {
  OUT="bench/results/$1-$(date -u +%Y%m%dT%H%MZ)"
  mkdir -p "$OUT"
  echo "results in $OUT${2:+ ($2)}" >&2
  uptime >"$OUT/uptime-start.txt"
}

close_results_dir() {
  uptime >"$OUT/uptime-end.txt"
  echo "done: $OUT" >&2
}
