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
command -v wrk >/dev/null || { echo "bench: wrk is missing (apt-get install wrk)" >&2; exit 1; }

work=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/skiff" ./cmd/skiff
cp -r examples/petshop "$work/app"
rm -rf "$work/app/.tmp"

measure() { # label url [script]
  local label=$1 url=$2 script=${3:-} conns out rps p99
  for conns in 2 4; do
    if [ -n "$script" ]; then
      out=$(wrk -t"$conns" -c"$conns" -d"$DURATION" --latency -s "$script" "$url" -- "$store$conns$RANDOM")
    else
      out=$(wrk -t"$conns" -c"$conns" -d"$DURATION" --latency "$url")
    fi
    rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
    p99=$(awk '$1=="99%" {print $2}' <<<"$out")
    if grep -q "Non-2xx" <<<"$out"; then echo "bench: $label had errors:"; echo "$out"; fi
    printf '| %-8s | %-28s | %d | %10s | %8s |\n' "$store" "$label" "$conns" "$rps" "$p99"
  done
}

echo "| store    | endpoint                     | conns | req/s | p99 |"
echo "|----------|------------------------------|-------|-------|-----|"
for store in $STORES; do
  envs=(SKIFF_ENV=development)
  if [ "$store" = postgres ]; then
    psql "$PG_URL" -qc 'DROP SCHEMA IF EXISTS skiff_bench CASCADE; CREATE SCHEMA skiff_bench' >/dev/null
    envs+=(SKIFF_DATASTORES__DEFAULT__ADAPTER=postgres "SKIFF_DATASTORES__DEFAULT__URL=$PG_URL&search_path=skiff_bench")
  fi
  env "${envs[@]}" "$work/skiff" serve --app "$work/app" --port "$PORT" --host 127.0.0.1 >"$work/$store.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PORT/product?limit=1" >/dev/null && break; sleep 0.1; done
  for i in $(seq 1 100); do
    curl -sf -o /dev/null -H 'content-type: application/json' \
      -d "{\"name\":\"Product $i\",\"sku\":\"seed-$i\",\"price\":$i,\"stock\":$i}" "http://127.0.0.1:$PORT/product"
  done
  measure "GET /product/:id" "http://127.0.0.1:$PORT/product/42"
  measure "GET /product?limit=30" "http://127.0.0.1:$PORT/product?limit=30"
  measure "POST /product" "http://127.0.0.1:$PORT/product" bench/post.lua
  if [ "${ASSOC:-1}" = 1 ]; then
    # Associations: 100 users with 10 pets each (one-to-many), 100 tags with 10 pets each
    # (many-to-many), all populated by default.
    for u in $(seq 1 100); do
      curl -sf -o /dev/null -H 'content-type: application/json' \
        -d "{\"name\":\"User $u\",\"email\":\"user$u@example.com\"}" "http://127.0.0.1:$PORT/user"
    done
    for p in $(seq 1 1000); do
      curl -sf -o /dev/null -H 'content-type: application/json' \
        -d "{\"name\":\"Pet $p\",\"owner\":$(( (p + 9) / 10 ))}" "http://127.0.0.1:$PORT/pet"
    done
    for t in $(seq 1 100); do
      first=$(( (t - 1) * 10 + 1 ))
      ids=$(seq -s, "$first" $((first + 9)))
      curl -sf -o /dev/null -H 'content-type: application/json' \
        -d "{\"label\":\"tag $t\",\"pets\":[$ids]}" "http://127.0.0.1:$PORT/tag"
    done
    measure "GET /user?limit=30 (1-n x10)" "http://127.0.0.1:$PORT/user?limit=30"
    measure "GET /tag?limit=30 (n-n x10)" "http://127.0.0.1:$PORT/tag?limit=30"
    measure "PUT /tag/1/pets (10 ids)" "http://127.0.0.1:$PORT/tag/1/pets" bench/replace.lua
  fi
  rss=$(awk '/VmRSS/ {print $2}' /proc/$pid/status)
  echo "| $store | RSS after load: $((rss / 1024)) MiB | | | |"
  kill "$pid"; wait "$pid" 2>/dev/null || true
done
