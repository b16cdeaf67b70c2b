#!/usr/bin/env bash
# Skiff against the floor (issue 24): bench/floor, a minimal hand-written server answering
# GET /pet/:id, GET /pet?limit=30 and POST /pet byte for byte as Skiff does, headers included
# (the first-visit session cookie, the ETag, the request id), on the same database; and the
# same server with -bare, which sends the body, its type and its length alone (what the floor
# was until 2026-11-27), to show what those headers cost. For each store (SQLite, PostgreSQL)
# it serves bench/floor/app with Skiff, seeds 100 users and 100 pets (pet i owned by user i)
# through Skiff, starts both floors on the same SQLite file or PostgreSQL schema, checks that
# Skiff and the floor give the same answers (GETs with their headers, but for the values that
# differ by nature: Date, the new session's token and signature, the request id; creates
# without the new pet's id and times, their headers alike) and that each accepts the other's
# session cookie, then loads each route with wrk, Skiff, the floor and the bare floor in turn,
# ROUNDS times over, at each of CONNS connections. It prints the medians of req/s, p99 and the
# server's CPU time per request (user plus system from /proc, µs), and Skiff's share of each
# floor's req/s; then Skiff's resident memory after the load.
#
#   bench/floor.sh                                   # both stores, 2 and 4 connections, 3 rounds of 5 s
#   STORES=sqlite ROUNDS=5 DURATION=3s bench/floor.sh
#   SKIFF_PORT=18650 FLOOR_PORT=18651 BARE_PORT=18652 bench/floor.sh # beside another run
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
BARE_PORT=${BARE_PORT:-18642}
SCHEMA=skiff_bench_floor
. bench/lib.sh
for tool in wrk curl jq; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is missing" >&2; exit 1; }
done
for port in $SKIFF_PORT $FLOOR_PORT $BARE_PORT; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "bench: port $port is in use; set SKIFF_PORT, FLOOR_PORT, BARE_PORT" >&2; exit 1
  fi
done

work=$(mktemp -d)
declare -A pid=()
trap 'bench_stop_servers; rm -rf "$work"' EXIT
bench_build "$work/skiff" ./cmd/skiff
bench_build "$work/floor" ./bench/floor
declare -A port=([skiff]=$SKIFF_PORT [floor]=$FLOOR_PORT [bare]=$BARE_PORT)

median() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ms() { # a wrk latency (850.00us, 1.20ms, 2.00s) in ms
  awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /[^m]s$/) n *= 1000; printf "%.2f", n }'
}

# answer ARGS...: curl's answer (status line, headers, body; -i), its line ends unixed and the
# values that differ by nature masked: Date, the request id, a new session's token and
# signature.
answer() {
  curl -sfi "$@" | tr -d '\r' | sed -E -e 's/^(Date: ).*/\1-/' -e 's/^(X-Request-Id: ).*/\1-/' \
    -e 's/^(Set-Cookie: sails\.sid=s%3A)[A-Za-z0-9_-]{43}\.[A-Za-z0-9%]{43,}; /\1-; /'
}

# cookie URL: the name=value of the session cookie URL's answer sets.
cookie() {
  curl -sfi "$1" | tr -d '\r' | awk '/^Set-Cookie: sails\.sid=/ { sub(/^Set-Cookie: /, ""); sub(/;.*/, ""); print }'
}

# same LABEL A B: fails unless the two answers are the same bytes.
same() {
  if [ "$2" != "$3" ]; then
    printf 'bench: %s differs:\n  skiff: %s\n  floor: %s\n' "$1" "$2" "$3" >&2
    exit 1
  fi
}

echo "| store | route | conns | Skiff req/s | floor req/s | Skiff/floor | bare floor req/s | Skiff/bare | p99 ms Skiff / floor / bare | CPU µs per request Skiff / floor / bare |"
echo "|---|---|---|---|---|---|---|---|---|---|"
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
    floor_db=(-sqlite "$work/app-$store/.tmp/default.db")
  else
    floor_db=(-postgres "$PG_URL&search_path=$SCHEMA")
  fi
  "$work/floor" -addr "127.0.0.1:$FLOOR_PORT" "${floor_db[@]}" >"$work/floor-$store.log" 2>&1 &
  pid[floor]=$!
  bench_wait_up "$floor/pet?limit=1"
  "$work/floor" -bare -addr "127.0.0.1:$BARE_PORT" "${floor_db[@]}" >"$work/bare-$store.log" 2>&1 &
  pid[bare]=$!
  bench_wait_up "http://127.0.0.1:$BARE_PORT/pet?limit=1"
  for path in /pet/42 "/pet?limit=30"; do
    same "GET $path ($store)" "$(answer "$skiff$path")" "$(answer "$floor$path")"
    same "GET $path ($store, bare floor's body)" "$(curl -sf "$skiff$path")" "$(curl -sf "http://127.0.0.1:$BARE_PORT$path")"
  done
  # Each accepts the other's session cookie: no new one in the answer.
  same "floor's cookie at Skiff ($store)" "" "$(curl -sfi -H "Cookie: $(cookie "$floor/pet/42")" "$skiff/pet/42" | grep -i '^set-cookie' || true)"
  same "Skiff's cookie at the floor ($store)" "" "$(curl -sfi -H "Cookie: $(cookie "$skiff/pet/42")" "$floor/pet/42" | grep -i '^set-cookie' || true)"
  strip='del(.id, .createdAt, .updatedAt)'
  body='{"name":"Check \"quoted\" é","owner":7}'
  post() { answer -H 'content-type: application/json' -d "$body" "$1/pet"; }
  created() { sed '1,/^$/d' | jq -cS "$strip"; }
  skiff_post=$(post "$skiff") floor_post=$(post "$floor")
  same "POST /pet ($store)" "$(created <<<"$skiff_post")" "$(created <<<"$floor_post")"
  same "POST /pet headers ($store)" "$(sed -E '/^$/q; s/^(Content-Length: ).*/\1-/' <<<"$skiff_post")" \
    "$(sed -E '/^$/q; s/^(Content-Length: ).*/\1-/' <<<"$floor_post")"
  same "POST /pet ($store, bare floor's body)" \
    "$(curl -sf -H 'content-type: application/json' -d "$body" "$skiff/pet" | jq -cS "$strip")" \
    "$(curl -sf -H 'content-type: application/json' -d "$body" "http://127.0.0.1:$BARE_PORT/pet" | jq -cS "$strip")"

  read -r ticks0 steal0 < <(bench_machine_ticks)
  for route in "GET /pet/:id" "GET /pet?limit=30" "POST /pet"; do
    case $route in
      "GET /pet/:id") path=/pet/42 script= ;;
      "GET /pet?limit=30") path="/pet?limit=30" script= ;;
      "POST /pet") path=/pet script=bench/floor/post.lua ;;
    esac
    for conns in $CONNS; do
      declare -A rps=() p99=() cpu=()
      for _ in $(seq 1 "$ROUNDS"); do
        for side in skiff floor bare; do
          read -r r p c _ < <(bench_wrk_cpu "${pid[$side]}" "$conns" "$DURATION" "http://127.0.0.1:${port[$side]}$path" $script)
          rps[$side]+="$r " p99[$side]+="$(ms "$p") " cpu[$side]+="$c "
        done
      done
      s=$(median ${rps[skiff]}) f=$(median ${rps[floor]}) b=$(median ${rps[bare]})
      printf '| %s | `%s` | %s | %s | %s | %s | %s | %s | %s / %s / %s | %s / %s / %s |\n' "$store" "$route" "$conns" "$s" "$f" \
        "$(awk -v a="$s" -v b="$f" 'BEGIN { printf "%.2f", a / b }')" "$b" \
        "$(awk -v a="$s" -v b="$b" 'BEGIN { printf "%.2f", a / b }')" \
        "$(median ${p99[skiff]})" "$(median ${p99[floor]})" "$(median ${p99[bare]})" \
        "$(median ${cpu[skiff]})" "$(median ${cpu[floor]})" "$(median ${cpu[bare]})"
      unset rps p99 cpu
    done
  done
  rss=$(awk '/VmRSS/ { print $2 }' "/proc/${pid[skiff]}/status")
  echo "| $store | Skiff's RSS after the load: $(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }') MiB | | | | | | | | |"
  echo "| $store | CPU time the hypervisor took during the load (steal): $(bench_steal "$ticks0" "$steal0")% | | | | | | | | |"
  bench_stop_servers
done
