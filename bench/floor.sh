#!/usr/bin/env bash
# Skiff against the floor (issue 24): bench/floor, a minimal hand-written server answering
# GET /pet/:id, GET /pet?limit=30 and POST /pet byte for byte as Skiff does, on the same
# database. For each store (SQLite, PostgreSQL) it serves bench/floor/app with Skiff, seeds
# 100 users and 100 pets (pet i owned by user i) through Skiff, starts the floor on the same
# SQLite file or PostgreSQL schema, checks that both give the same bytes (GETs as they are;
# creates with the new pet's id and times left out), then loads each route with wrk, Skiff then
# the floor, ROUNDS times over, at each of CONNS connections. It prints the medians of req/s,
# p99 and the server's CPU time per request (user plus system from /proc, µs), and Skiff's
# share of the floor's req/s; then Skiff's resident memory after the load.
#
#   bench/floor.sh                                   # both stores, 2 and 4 connections, 3 rounds of 5 s
#   STORES=sqlite ROUNDS=5 DURATION=3s bench/floor.sh
#   SKIFF_PORT=18650 FLOOR_PORT=18651 bench/floor.sh # beside another run
#
# Needs wrk, curl, jq, psql. PostgreSQL: the schema skiff_bench_floor of
# $SKIFF_BENCH_POSTGRES_URL (default: the `test` database), dropped and made afresh.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-5s}
ROUNDS=${ROUNDS:-3}
CONNS=${CONNS:-"2 4"}
STORES=${STORES:-"sqlite postgres"}
PG_URL=${SKIFF_BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
SKIFF_PORT=${SKIFF_PORT:-18640}
FLOOR_PORT=${FLOOR_PORT:-18641}
SCHEMA=skiff_bench_floor
. bench/lib.sh
for tool in wrk curl jq; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is missing" >&2; exit 1; }
done
for port in $SKIFF_PORT $FLOOR_PORT; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "bench: port $port is in use; set SKIFF_PORT, FLOOR_PORT" >&2; exit 1
  fi
done

work=$(mktemp -d)
declare -A pid=()
trap 'bench_stop_servers; rm -rf "$work"' EXIT
go build -o "$work/skiff" ./cmd/skiff
go build -o "$work/floor" ./bench/floor
declare -A port=([skiff]=$SKIFF_PORT [floor]=$FLOOR_PORT)

median() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ms() { # a wrk latency (850.00us, 1.20ms, 2.00s) in ms
  awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /[^m]s$/) n *= 1000; printf "%.2f", n }'
}

# same LABEL A B: fails unless the two answers are the same bytes.
same() {
  if [ "$2" != "$3" ]; then
    printf 'bench: %s differs:\n  skiff: %s\n  floor: %s\n' "$1" "$2" "$3" >&2
    exit 1
  fi
}

echo "| store | route | conns | Skiff req/s | floor req/s | Skiff/floor | p99 ms Skiff / floor | CPU µs per request Skiff / floor |"
echo "|---|---|---|---|---|---|---|---|"
for store in $STORES; do
  cp -r bench/floor/app "$work/app-$store"
  rm -rf "$work/app-$store/.tmp"
  bench_skiff_start "$work/skiff" "$work/app-$store" "$store" "$SKIFF_PORT" "$work/skiff-$store.log" "$PG_URL" "$SCHEMA"
  pid[skiff]=$BENCH_PID
  skiff=http://127.0.0.1:$SKIFF_PORT
  floor=http://127.0.0.1:$FLOOR_PORT
  bench_wait_up "$skiff/pet?limit=1"
  echo "bench: seeding ($store)" >&2
  for i in $(seq 1 100); do
    bench_post "$skiff" /user "{\"name\":\"User $i\",\"email\":\"user$i@example.com\"}"
  done
  for i in $(seq 1 100); do
    bench_post "$skiff" /pet "{\"name\":\"Pet $i\",\"owner\":$i}"
  done
  if [ "$store" = sqlite ]; then
    "$work/floor" -addr "127.0.0.1:$FLOOR_PORT" -sqlite "$work/app-$store/.tmp/default.db" >"$work/floor-$store.log" 2>&1 &
  else
    "$work/floor" -addr "127.0.0.1:$FLOOR_PORT" -postgres "$PG_URL&search_path=$SCHEMA" >"$work/floor-$store.log" 2>&1 &
  fi
  pid[floor]=$!
  bench_wait_up "$floor/pet?limit=1"
  for path in /pet/42 "/pet?limit=30"; do
    same "GET $path ($store)" "$(curl -sf "$skiff$path")" "$(curl -sf "$floor$path")"
  done
  strip='del(.id, .createdAt, .updatedAt)'
  body='{"name":"Check \"quoted\" é","owner":7}'
  same "POST /pet ($store)" \
    "$(curl -sf -H 'content-type: application/json' -d "$body" "$skiff/pet" | jq -cS "$strip")" \
    "$(curl -sf -H 'content-type: application/json' -d "$body" "$floor/pet" | jq -cS "$strip")"

  for route in "GET /pet/:id" "GET /pet?limit=30" "POST /pet"; do
    case $route in
      "GET /pet/:id") path=/pet/42 script= ;;
      "GET /pet?limit=30") path="/pet?limit=30" script= ;;
      "POST /pet") path=/pet script=bench/floor/post.lua ;;
    esac
    for conns in $CONNS; do
      declare -A rps=() p99=() cpu=()
      for _ in $(seq 1 "$ROUNDS"); do
        for side in skiff floor; do
          read -r r p c _ < <(bench_wrk_cpu "${pid[$side]}" "$conns" "$DURATION" "http://127.0.0.1:${port[$side]}$path" $script)
          rps[$side]+="$r " p99[$side]+="$(ms "$p") " cpu[$side]+="$c "
        done
      done
      s=$(median ${rps[skiff]}) f=$(median ${rps[floor]})
      printf '| %s | `%s` | %s | %s | %s | %s | %s / %s | %s / %s |\n' "$store" "$route" "$conns" "$s" "$f" \
        "$(awk -v a="$s" -v b="$f" 'BEGIN { printf "%.2f", a / b }')" \
        "$(median ${p99[skiff]})" "$(median ${p99[floor]})" "$(median ${cpu[skiff]})" "$(median ${cpu[floor]})"
      unset rps p99 cpu
    done
  done
  rss=$(awk '/VmRSS/ { print $2 }' "/proc/${pid[skiff]}/status")
  echo "| $store | Skiff's RSS after the load: $((rss / 1024)) MiB | | | | | | |"
  bench_stop_servers
done
