#!/usr/bin/env bash
# A/B load benchmark of two builds of Skiff: the commit BASE (default: the merge base with main)
# against the working tree. Both serve the petshop app on SQLite side by side, seeded with the
# rows bench/run.sh seeds; each endpoint is then loaded with wrk, BASE then the working tree,
# ROUNDS times over, and each side's median req/s is printed with their ratio and the median of
# the rounds' own ratios (each round's two runs are back to back, so that one is the least
# touched by the machine's drift; see bench/compare.sh).
#
#   bench/ab.sh                                  # merge base with main, 5 rounds of 5 s, 2 connections
#   BASE=419e567 ROUNDS=9 DURATION=3s bench/ab.sh
#   PATHS="/pet/42 /pet?limit=30" bench/ab.sh    # other endpoints (GET only)
#
# Needs wrk, curl.
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${BASE:-$(git merge-base HEAD main)}
ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-5s}
CONNS=${CONNS:-2}
PATHS=${PATHS:-"/pet/42 /pet?limit=30 /product/42 /product?limit=30"}
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
declare -A port=([base]=18741 [head]=18742)
for side in base head; do
  cp -r examples/petshop "$work/app-$side"
  rm -rf "$work/app-$side/.tmp"
  bench_skiff_start "$work/skiff-$side" "$work/app-$side" sqlite "${port[$side]}" "$work/$side.log"
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

echo "| endpoint | conns | base $(git rev-parse --short "$BASE") req/s | head req/s | head/base | median of round ratios | base runs | head runs |"
echo "|---|---|---|---|---|---|---|---|"
for path in $PATHS; do
  for conns in $CONNS; do
    declare -A runs=([base]="" [head]="") last=()
    ratios=""
    for _ in $(seq 1 "$ROUNDS"); do
      for side in base head; do
        read -r rps _ < <(bench_wrk "$conns" "$DURATION" "http://127.0.0.1:${port[$side]}$path")
        runs[$side]+="$rps "
        last[$side]=$rps
      done
      ratios+="$(awk -v a="${last[head]}" -v b="${last[base]}" 'BEGIN { printf "%.4f", a / b }') "
    done
    b=$(median ${runs[base]})
    h=$(median ${runs[head]})
    printf '| GET %s | %s | %s | %s | %s | %s | %s | %s |\n' "$path" "$conns" "$b" "$h" \
      "$(awk -v a="$h" -v b="$b" 'BEGIN { printf "%.3f", a / b }')" "$(median $ratios)" "${runs[base]% }" "${runs[head]% }"
  done
done
