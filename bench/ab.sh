#!/usr/bin/env bash
# A/B load benchmark of two builds of Skiff: the commit BASE (default: the merge base with main)
# against the working tree. Both serve the petshop app on SQLite (or STORE=postgres|mysql) side
# by side, seeded with the rows bench/run.sh seeds; each endpoint is then loaded with wrk, ROUNDS
# times over, BASE first in odd rounds and the working tree first in even ones (so that neither
# always runs just after the other's load and the database's cleanup of it). Per side it prints
# the median req/s and the median server
# CPU time per request (µs, user plus system from /proc), and the head/base ratios: of the medians
# of req/s and the median of the rounds' own req/s ratios (each round's two runs are back to back,
# so that one is the least touched by the machine's drift; see bench/compare.sh). CPU per request
# is the figure to trust on a busy machine: it does not count the time the server waited for a
# core.
#
#   bench/ab.sh                                  # merge base with main, 5 rounds of 5 s, 2 connections
#   BASE=419e567 ROUNDS=9 DURATION=3s bench/ab.sh
#   PATHS="/pet/42 /pet?limit=30" bench/ab.sh    # other endpoints; "POST:/product" posts products,
#                                                # "POST:/pet" pets with an owner (bench/floor/post.lua),
#                                                # "PUT:/tag/1/pets" replaces ten members (bench/replace.lua)
#   STORE=postgres BASE_PORT=18601 HEAD_PORT=18602 bench/ab.sh
#   STORE=mysql PATHS=PUT:/tag/1/pets ROUNDS=8 bench/ab.sh
#
# With DB_PID=<pid of the database server> (one nothing else uses: a private mariadbd or
# postgres, docs/performance.md) the table also gives the database's CPU time per request.
#
#   DB_PID=$(cat /tmp/my/pid) SKIFF_BENCH_MYSQL_URL=mysql://root@127.0.0.1:18799 STORE=mysql bench/ab.sh
#
# PostgreSQL uses $SKIFF_BENCH_POSTGRES_URL (schemas skiff_bench_ab_base and _head), MySQL the
# server of $SKIFF_BENCH_MYSQL_URL (databases of those names). Needs wrk, curl (and psql or mysql).
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${BASE:-$(git merge-base HEAD main)}
ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-5s}
CONNS=${CONNS:-2}
STORE=${STORE:-sqlite}
PG_URL=${SKIFF_BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
MY_SERVER=${SKIFF_BENCH_MYSQL_URL:-mysql://root@127.0.0.1:3306}
PATHS=${PATHS:-"/pet/42 /pet?limit=30 /product/42 /product?limit=30 POST:/product"}
. bench/lib.sh
for tool in wrk curl; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is missing" >&2; exit 1; }
done

work=$(mktemp -d)
declare -A pid=()
trap 'bench_stop_servers; rm -rf "$work"' EXIT

mkdir "$work/base"
git archive "$BASE" | tar -x -C "$work/base"
(cd "$work/base" && bench_build "$work/skiff-base" ./cmd/skiff)
bench_build "$work/skiff-head" ./cmd/skiff
declare -A port=([base]=${BASE_PORT:-18741} [head]=${HEAD_PORT:-18742})
server=$PG_URL
if [ "$STORE" = mysql ]; then server=$MY_SERVER; fi
for side in base head; do
  cp -r examples/petshop "$work/app-$side"
  rm -rf "$work/app-$side/.tmp"
  bench_skiff_start "$work/skiff-$side" "$work/app-$side" "$STORE" "${port[$side]}" "$work/$side.log" "$server" "skiff_bench_ab_$side"
  pid[$side]=$BENCH_PID
  bench_wait_up "http://127.0.0.1:${port[$side]}/product?limit=1"
  echo "bench: seeding $side" >&2
  bench_seed_products "http://127.0.0.1:${port[$side]}"
  bench_seed_associations "http://127.0.0.1:${port[$side]}"
done

# median N...: the middle one of the numbers, or the mean of the middle two.
median() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }

export BENCH_DB_PID=${DB_PID:-}
echo "| endpoint | conns | base $(git rev-parse --short "$BASE") req/s | head req/s | head/base | median of round ratios | base CPU µs/req | head CPU µs/req | head/base CPU | database CPU µs/req, base / head |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for path in $PATHS; do
  method=GET script=
  if [[ $path == POST:/pet ]]; then
    # A create with a singular association (owners 1 to 100, seeded).
    method=POST path=/pet script=bench/floor/post.lua
  elif [[ $path == POST:* ]]; then
    method=POST path=${path#POST:} script=bench/post.lua
  elif [[ $path == PUT:* ]]; then
    method=PUT path=${path#PUT:} script=bench/replace.lua
  fi
  for conns in $CONNS; do
    declare -A runs=([base]="" [head]="") cpus=([base]="" [head]="") dbs=([base]="" [head]="") last=()
    ratios=""
    for round in $(seq 1 "$ROUNDS"); do
      order="base head"
      if [ $((round % 2)) = 0 ]; then order="head base"; fi
      for side in $order; do
        read -r rps _ cpu db < <(bench_wrk_cpu "${pid[$side]}" "$conns" "$DURATION" "http://127.0.0.1:${port[$side]}$path" $script)
        runs[$side]+="$rps "
        cpus[$side]+="$cpu "
        dbs[$side]+="$db "
        last[$side]=$rps
      done
      ratios+="$(ratio "${last[head]}" "${last[base]}") "
    done
    b=$(median ${runs[base]})
    h=$(median ${runs[head]})
    bc=$(median ${cpus[base]})
    hc=$(median ${cpus[head]})
    db="-"
    if [ -n "$BENCH_DB_PID" ]; then db="$(median ${dbs[base]}) / $(median ${dbs[head]})"; fi
    printf '| %s %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$method" "$path" "$conns" "$b" "$h" \
      "$(ratio "$h" "$b")" "$(median $ratios)" "$bc" "$hc" "$(ratio "$hc" "$bc")" "$db"
  done
done
