#!/usr/bin/env bash
# A/B of replace (PUT /tag/1/pets with 10 ids, bench/replace.lua) between two builds of Skiff on
# one store: the commit BASE (default: the merge base with main) against the working tree, both
# serving the petshop app seeded as bench/run.sh seeds it, each in a database of its own. Each
# round loads both, BASE first in odd rounds and the working tree first in even ones (so that
# neither always runs just after the other's load and the database's cleanup of it). The table
# gives each side's median req/s, the median of the rounds' ratios, and each side's median
# server CPU per replace: user + system time of the Skiff process over the run, from /proc,
# divided by the replaces it answered, which moves much less than req/s with the machine's other
# load. The database server's CPU is not counted: it is shared with whatever else runs.
#
#   STORE=mysql bench/replace-ab.sh                     # 5 rounds of 5 s, 2 connections
#   BASE=2c691ee STORE=postgres ROUNDS=9 CONNS="2 4" bench/replace-ab.sh
#   A_PORT=18201 B_PORT=18202 STORE=sqlite bench/replace-ab.sh
#
# STORE is sqlite, postgres ($SKIFF_BENCH_POSTGRES_URL, schemas skiff_bench_ab_base and _head)
# or mysql ($SKIFF_BENCH_MYSQL_URL's server, databases of those names). Needs wrk, curl, and
# psql or mysql for those stores.
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${BASE:-$(git merge-base HEAD main)}
STORE=${STORE:-mysql}
ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-5s}
CONNS=${CONNS:-2}
A_PORT=${A_PORT:-18741}
B_PORT=${B_PORT:-18742}
PG_URL=${SKIFF_BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
MY_SERVER=${SKIFF_BENCH_MYSQL_URL:-mysql://root@127.0.0.1:3306}
. bench/lib.sh
for tool in wrk curl; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is missing" >&2; exit 1; }
done

work=$(mktemp -d)
declare -A pid=()
trap 'for s in "${!pid[@]}"; do kill "${pid[$s]}" 2>/dev/null || true; wait "${pid[$s]}" 2>/dev/null || true; done; rm -rf "$work"' EXIT

mkdir "$work/base"
git archive "$BASE" | tar -x -C "$work/base"
(cd "$work/base" && go build -o "$work/skiff-base" ./cmd/skiff)
go build -o "$work/skiff-head" ./cmd/skiff
declare -A port=([base]=$A_PORT [head]=$B_PORT)
server=$PG_URL
if [ "$STORE" = mysql ]; then server=$MY_SERVER; fi
for side in base head; do
  cp -r examples/petshop "$work/app-$side"
  rm -rf "$work/app-$side/.tmp"
  bench_skiff_start "$work/skiff-$side" "$work/app-$side" "$STORE" "${port[$side]}" "$work/$side.log" "$server" "skiff_bench_ab_$side"
  pid[$side]=$BENCH_PID
  bench_wait_up "http://127.0.0.1:${port[$side]}/product?limit=1"
  echo "bench: seeding $side" >&2
  bench_seed_associations "http://127.0.0.1:${port[$side]}"
done

# median N...: the middle one of the numbers, or the mean of the middle two.
median() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# cpu PID: the process's user + system time so far, in clock ticks.
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
tick=$(getconf CLK_TCK)

echo "| store | endpoint | conns | base $(git rev-parse --short "$BASE") req/s | head req/s | median of round ratios | base CPU µs/replace | head CPU µs/replace |"
echo "|---|---|---|---|---|---|---|---|"
for conns in $CONNS; do
  declare -A runs=([base]="" [head]="") cpus=([base]="" [head]="") last=()
  ratios=""
  for round in $(seq 1 "$ROUNDS"); do
    order="base head"
    if [ $((round % 2)) = 0 ]; then order="head base"; fi
    for side in $order; do
      before=$(cpu "${pid[$side]}")
      out=$(wrk -t"$conns" -c"$conns" -d"$DURATION" -s bench/replace.lua "http://127.0.0.1:${port[$side]}/tag/1/pets")
      after=$(cpu "${pid[$side]}")
      if grep -qE "Non-2xx|Socket errors" <<<"$out"; then
        printf 'bench: %s had errors:\n%s\n' "$side" "$out" >&2
      fi
      rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
      n=$(awk '/requests in/ {print $1}' <<<"$out")
      runs[$side]+="$rps "
      cpus[$side]+="$(awk -v c=$((after - before)) -v t="$tick" -v n="$n" 'BEGIN { printf "%.0f", c / t * 1e6 / n }') "
      last[$side]=$rps
    done
    ratios+="$(awk -v a="${last[head]}" -v b="${last[base]}" 'BEGIN { printf "%.4f", a / b }') "
  done
  printf '| %s | PUT /tag/1/pets (10 ids) | %s | %s | %s | %s | %s | %s |\n' "$STORE" "$conns" \
    "$(median ${runs[base]})" "$(median ${runs[head]})" "$(median $ratios)" "$(median ${cpus[base]})" "$(median ${cpus[head]})"
  echo "bench: runs base ${runs[base]}/ head ${runs[head]}/ cpu base ${cpus[base]}/ head ${cpus[head]}" >&2
done
