#!/usr/bin/env bash
# Load benchmark: serves the example app with Skiff on SQLite and on PostgreSQL and loads its
# product model (no associations; 100 rows) with wrk (Debian package) at 2 and 4 connections. Prints req/s and p99 latency per endpoint, and
# Skiff's resident memory after the load.
#
#   bench/run.sh               # both stores, 10 s per measurement
#   DURATION=5s STORES=sqlite bench/run.sh
#   ASSOC=0 bench/run.sh       # skip the association measurements
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10s}
STORES=${STORES:-"sqlite postgres"}
PG_URL=${SKIFF_BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
PORT=${PORT:-18337}
. bench/lib.sh
command -v wrk >/dev/null || { echo "bench: wrk is missing (apt-get install wrk)" >&2; exit 1; }

work=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; rm -rf "$work"' EXIT
bench_build "$work/skiff" ./cmd/skiff
cp -r examples/petshop "$work/app"
rm -rf "$work/app/.tmp"

measure() { # label url [script]
  local label=$1 url=$2 script=${3:-} conns rps p99
  for conns in 2 4; do
    read -r rps p99 < <(bench_wrk "$conns" "$DURATION" "$url" "$script")
    printf '| %-8s | %-28s | %d | %10s | %8s |\n' "$store" "$label" "$conns" "$rps" "$p99"
  done
}

echo "| store    | endpoint                     | conns | req/s | p99 |"
echo "|----------|------------------------------|-------|-------|-----|"
for store in $STORES; do
  bench_skiff_start "$work/skiff" "$work/app" "$store" "$PORT" "$work/$store.log" "$PG_URL" skiff_bench
  pid=$BENCH_PID
  base=http://127.0.0.1:$PORT
  bench_wait_up "$base/product?limit=1"
  bench_seed_products "$base"
  if [ "${ASSOC:-1}" = 1 ]; then bench_seed_associations "$base"; fi
  bench_endpoints measure "$base"
  rss=$(awk '/VmRSS/ {print $2}' /proc/$pid/status)
  echo "| $store | RSS after load: $((rss / 1024)) MiB | | | |"
  kill "$pid"; wait "$pid" 2>/dev/null || true
done
