#!/usr/bin/env bash
# A real Neo4j 5.26 (Community, embedded, Bolt only) for tests and local development,
# without Docker. See tools/neo4j-test-server/README.md.
#
#   scripts/neo4j-test-server.sh start  [--port P] [--data DIR] [--keep] [--auth USER:PASS]
#                                       [--page-cache-mb N] [--long-lived]
#   scripts/neo4j-test-server.sh stop   [--port P]
#   scripts/neo4j-test-server.sh status [--port P]
#   scripts/neo4j-test-server.sh build
#
# start  builds the Java tool if its sources are newer than the build, starts the server in
#        the background (log: .tmp/neo4j/neo4j-<port>.log), waits for it to accept Bolt and
#        prints NEO4J_URI=bolt://127.0.0.1:<port>. Already running on that port: prints the
#        URI only. The data dir (default .tmp/neo4j/data, or .tmp/neo4j/data-<port> for a
#        port other than 7687) is wiped first unless --keep. --port 0 picks a free port.
#        --page-cache-mb: Neo4j's page cache (default 128, enough for the tests); a benchmark
#        store wants it larger than its store files (100k memories: about 450 MB).
#        --long-lived: JVM flags for a server that answers queries for a whole test run
#        (the optimising JIT compiler and a 1 GB heap; LONG_LIVED_JAVA_OPTS below).
# stop   SIGTERM, waits for a clean exit (SIGKILL after NEO4J_STOP_TIMEOUT, default 30 s).
# status prints "running pid N NEO4J_URI=..." (exit 0) or "not running" (exit 1).
#
# Environment: NEO4J_TEST_JAVA_OPTS (JVM flags, over either default below),
# NEO4J_START_TIMEOUT (seconds, default 120), JAVA_HOME (Java 17+).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOL="$ROOT/tools/neo4j-test-server"
JAR="$TOOL/target/neo4j-test-server.jar"
STAMP="$TOOL/target/.build-stamp"
STATE="$ROOT/.tmp/neo4j"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
# Small heap, serial GC and C1 only: about half the startup time and ~230 MB RSS on 2 cores.
# For heavier work (benchmarks) set NEO4J_TEST_JAVA_OPTS="-Xmx2g" or similar.
DEFAULT_JAVA_OPTS="-Xms64m -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1"
# A server that answers queries for a whole run: C2 pays for its slower start there (the
# Neo4j conformance file alone took 187 s with C1 only, 150 s with it).
LONG_LIVED_JAVA_OPTS="-Xms256m -Xmx1g -XX:+UseSerialGC"
START_TIMEOUT="${NEO4J_START_TIMEOUT:-120}"
STOP_TIMEOUT="${NEO4J_STOP_TIMEOUT:-30}"

die() { echo "neo4j-test-server: $*" >&2; exit 1; }
# The header comment, down to the first line of code.
usage() { sed -n '2,/^[^#]/{/^#/p}' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

cmd="${1:-}"; [ $# -gt 0 ] && shift
PORT=7687; DATA=""; KEEP=0; AUTH=""; PAGE_CACHE_MB=""; LONG_LIVED=0
while [ $# -gt 0 ]; do
  case "$1" in
    --port) PORT="${2:?--port needs a value}"; shift 2 ;;
    --data) DATA="${2:?--data needs a value}"; shift 2 ;;
    --keep) KEEP=1; shift ;;
    --auth) AUTH="${2:?--auth needs USER:PASSWORD}"; shift 2 ;;
    --no-auth) AUTH=""; shift ;;
    --page-cache-mb) PAGE_CACHE_MB="${2:?--page-cache-mb needs a value}"; shift 2 ;;
    --long-lived) LONG_LIVED=1; shift ;;
    -h|--help) usage ;;
    *) die "unknown argument: $1" ;;
  esac
done
if [ "$LONG_LIVED" = 1 ]; then JAVA_OPTS="${NEO4J_TEST_JAVA_OPTS:-$LONG_LIVED_JAVA_OPTS}"
else JAVA_OPTS="${NEO4J_TEST_JAVA_OPTS:-$DEFAULT_JAVA_OPTS}"; fi
[[ "$PORT" =~ ^[0-9]+$ ]] && [ "$PORT" -le 65535 ] || die "bad port: $PORT"
[ -z "$PAGE_CACHE_MB" ] || [[ "$PAGE_CACHE_MB" =~ ^[1-9][0-9]*$ ]] || die "bad page cache size: $PAGE_CACHE_MB"
if [ -z "$DATA" ]; then
  if [ "$PORT" = 7687 ]; then DATA="$STATE/data"; else DATA="$STATE/data-$PORT"; fi
fi
case "$DATA" in /*) ;; *) DATA="$PWD/$DATA" ;; esac

PIDFILE="$STATE/neo4j-$PORT.pid"
URIFILE="$STATE/neo4j-$PORT.uri"
LOG="$STATE/neo4j-$PORT.log"

# Our pid file names a live neo4j-test-server (not a recycled pid)?
running_pid() {
  [ -f "$PIDFILE" ] || return 1
  local pid; pid="$(cat "$PIDFILE" 2>/dev/null)" || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'neo4j-test-server' || return 1
  echo "$pid"
}

needs_build() {
  [ -f "$JAR" ] && [ -f "$STAMP" ] && [ -d "$TOOL/target/lib" ] || return 0
  [ -n "$(find "$TOOL/pom.xml" "$TOOL/src" -newer "$STAMP" -print -quit)" ]
}

# A build is kept per content of pom.xml and src/ under the user's cache, so
# a fresh clone of the same sources (CI) copies it instead of running Maven.
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/keepgraph/neo4j-test-server"
source_key() {
  (cd "$TOOL" && find pom.xml src -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) \
    | sha256sum | cut -c1-16
}

build() {
  local key cached
  key="$(source_key)"
  cached="$CACHE_ROOT/$key"
  if [ -f "$cached/neo4j-test-server.jar" ] && [ -d "$cached/lib" ]; then
    echo "neo4j-test-server: using the build of these sources in $cached" >&2
    rm -rf "$TOOL/target"
    mkdir -p "$TOOL/target"
    cp -r "$cached/neo4j-test-server.jar" "$cached/lib" "$TOOL/target/"
    touch "$STAMP"
    return 0
  fi
  command -v mvn >/dev/null || die "mvn not found (Maven 3.8+ and Java 17 are needed)"
  echo "neo4j-test-server: building tools/neo4j-test-server (first time downloads ~170 MB into ~/.m2)" >&2
  local out; out="$(mktemp)"
  if ! mvn -q -B -Dstyle.color=never -f "$TOOL/pom.xml" package >"$out" 2>&1; then
    cat "$out" >&2; rm -f "$out"; die "build failed"
  fi
  rm -f "$out"
  touch "$STAMP"
  # Into the cache whole or not at all: copied beside it, then renamed.
  mkdir -p "$CACHE_ROOT"
  local tmp; tmp="$(mktemp -d "$CACHE_ROOT/.tmp-XXXXXX")"
  if cp -r "$JAR" "$TOOL/target/lib" "$tmp/"; then
    mv -T "$tmp" "$cached" 2>/dev/null || rm -rf "$tmp"
  else
    rm -rf "$tmp"
  fi
}

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# SIGTERM, then wait for the exit; SIGKILL after STOP_TIMEOUT.
terminate() {
  local pid="$1" deadline=$((SECONDS + STOP_TIMEOUT))
  kill -TERM "$pid" 2>/dev/null || return 0
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "neo4j-test-server: pid $pid still running after ${STOP_TIMEOUT}s, sending SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.1
  done
}

start() {
  local pid
  if pid="$(running_pid)"; then
    echo "NEO4J_URI=$(cat "$URIFILE")"
    return 0
  fi
  rm -f "$PIDFILE" "$URIFILE"
  if needs_build; then build; fi
  if [ "$PORT" != 0 ] && port_busy "$PORT"; then
    die "port $PORT is already in use by another process (try --port 0 or another port)"
  fi
  if [ "$KEEP" = 0 ]; then rm -rf "$DATA"; fi
  mkdir -p "$DATA"
  local args=(--port "$PORT" --data "$DATA")
  if [ -n "$AUTH" ]; then args+=(--auth "$AUTH"); else args+=(--no-auth); fi
  if [ -n "$PAGE_CACHE_MB" ]; then args+=(--page-cache-mb "$PAGE_CACHE_MB"); fi
  : >"$LOG"
  # setsid: its own session, so a Ctrl-C in the calling terminal does not reach it.
  # shellcheck disable=SC2086
  setsid "$JAVA" $JAVA_OPTS -jar "$JAR" "${args[@]}" </dev/null >>"$LOG" 2>&1 9>&- &
  pid=$!
  echo "$pid" >"$PIDFILE"
  local deadline=$((SECONDS + START_TIMEOUT)) line
  while :; do
    line="$(grep -m1 '^NEO4J_READY ' "$LOG" 2>/dev/null || true)"
    if [ -n "$line" ]; then break; fi
    if ! kill -0 "$pid" 2>/dev/null; then
      rm -f "$PIDFILE"
      echo "neo4j-test-server: server exited before it was ready; log $LOG:" >&2
      tail -n 40 "$LOG" >&2
      exit 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "neo4j-test-server: not ready after ${START_TIMEOUT}s; log $LOG:" >&2
      tail -n 40 "$LOG" >&2
      terminate "$pid"
      rm -f "$PIDFILE"
      exit 1
    fi
    sleep 0.2
  done
  local uri="${line#NEO4J_READY }"
  echo "$uri" >"$URIFILE"
  echo "NEO4J_URI=$uri"
}

stop() {
  local pid
  if ! pid="$(running_pid)"; then
    rm -f "$PIDFILE" "$URIFILE"
    echo "neo4j-test-server: not running (port $PORT)"
    return 0
  fi
  terminate "$pid"
  rm -f "$PIDFILE" "$URIFILE"
  echo "neo4j-test-server: stopped (pid $pid)"
}

status() {
  local pid
  if pid="$(running_pid)"; then
    echo "running pid $pid NEO4J_URI=$(cat "$URIFILE" 2>/dev/null || echo '?') log $LOG"
  else
    echo "not running (port $PORT)"
    return 1
  fi
}

mkdir -p "$STATE"
case "$cmd" in
  start|stop)
    # One start/stop at a time per port (e.g. parallel test workers calling start).
    exec 9>"$STATE/neo4j-$PORT.lock"
    flock -w "$((START_TIMEOUT + 30))" 9 || die "could not get the lock $STATE/neo4j-$PORT.lock"
    "$cmd" ;;
  status) status ;;
  build) if needs_build; then build; fi; echo "neo4j-test-server: built $JAR" >&2 ;;
  *) usage ;;
esac
