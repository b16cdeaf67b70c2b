#!/usr/bin/env bash
# Instructions per request, counted by valgrind's callgrind: a measure of a change's cost that
# does not move with the machine's load (wall-clock and even CPU time do, on shared cores). It
# runs BenchmarkRequest (request_bench_test.go: the example app on SQLite, requests through the
# handler, the log line at info) for each request kind with N1 and then N2 requests, and divides
# the difference of the two runs' instruction counts by N2 - N1, so that the start and the
# seeding fall out. With BASE (a git revision), that revision is measured the same way (the
# benchmark file is copied into it when it has none) and the table gains the ratio. With FLOOR
# set, the floor-* kinds are also counted in bench/floor's own handler (BenchmarkFloor, the same
# requests on a file Skiff seeded), in a second table with Skiff's share of the floor's count (its answers
# carry Skiff's headers) and of the bare floor's (-bare: the body alone).
#
#   bench/instructions.sh                          # this tree only
#   BASE=419e567 bench/instructions.sh             # before/after
#   KINDS="pet-42 pet-list" N1=100 N2=600 bench/instructions.sh
#   FLOOR=1 KINDS="floor-42 floor-list floor-create" bench/instructions.sh  # also the floor's handler
#
# Needs valgrind. Go's asynchronous preemption is turned off (GODEBUG): callgrind cannot follow
# its signals. So is the runtime's use of RDTSCP (GODEBUG cpu.rdtscp=off), which valgrind 3.19
# cannot decode: where the CPU has it (AMD EPYC), every run died of SIGILL. So is the garbage
# collector (GOGC=off): when its cycles fall varies from run to run, and they moved the count by
# tens of millions of instructions. What it would cost follows
# the bytes allocated, which the table gives beside the instructions (from -benchmem, exact).
# And the process runs on one P (GOMAXPROCS=1): idle Ps spin looking for work, which counted
# tens of thousands of instructions per request, more or fewer from run to run. So measured,
# repeated runs agree within about 2%.
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${BASE:-}
N1=${N1:-1000}
N2=${N2:-3000}
KINDS=${KINDS:-"product-42 product-list pet-42 pet-list pet-create product-create"}
command -v valgrind >/dev/null || { echo "bench: valgrind is missing" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go test -c -o "$work/head.test" .
if [ -n "${FLOOR:-}" ]; then go test -c -o "$work/floor.test" ./bench/floor; fi
sides=(head)
if [ -n "$BASE" ]; then
  mkdir "$work/base"
  git archive "$BASE" | tar -x -C "$work/base"
  if [ ! -f "$work/base/request_bench_test.go" ]; then
    cp request_bench_test.go "$work/base/"
    if [ ! -d "$work/base/app" ]; then # before LoadApp moved to the app package
      sed -i -e 's/app\.Load(/skiff.LoadApp(/' -e '/"github.com\/skiffhq\/skiff\/app"/d' "$work/base/request_bench_test.go"
    fi
    if ! grep -q '^func NewTextLogger' "$work/base"/*.go; then # before skiff.NewTextLogger: slog's own
      sed -i 's/skiff\.NewTextLogger(io\.Discard, slog\.LevelInfo)/slog.New(slog.NewTextHandler(io.Discard, \&slog.HandlerOptions{Level: slog.LevelInfo}))/' "$work/base/request_bench_test.go"
    fi
  fi
  (cd "$work/base" && go test -c -o "$work/base.test" .)
  sides=(base head)
fi

count() { # binary kind n: "instructions B/op allocs/op" of the whole run (in the tree it was built from: it reads examples/)
  local dir=. bench="Request/^$2"
  if [ "$1" = "$work/base.test" ]; then dir=$work/base; fi
  if [ "$1" = "$work/floor.test" ]; then dir=bench/floor bench="Floor/^${2#floor-}"; fi
  (cd "$dir" && GOMAXPROCS=1 GOGC=off GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind --callgrind-out-file=/dev/null \
    "$1" -test.run '^$' -test.bench "$bench\$" -test.benchtime "${3}x" -test.benchmem 2>&1 |
    awk '/^(FAIL|--- FAIL)/ { failed = 1 } /^Benchmark(Request|Floor)\// { bytes = $5; allocs = $7 } /Collected :/ { n = $4 }
      END { if (failed || n == "") exit 1; print n, bytes, allocs }') ||
    { echo "bench: $2 failed under valgrind" >&2; exit 1; }
}

per_request() { # binary kind: "instructions B/op allocs/op" per request
  local a b bytes allocs
  read -r a _ _ < <(count "$1" "$2" "$N1")
  read -r b bytes allocs < <(count "$1" "$2" "$N2")
  echo "$(( (b - a) / (N2 - N1) )) $bytes $allocs"
}

if [ -n "$BASE" ]; then
  echo "| request | base $(git rev-parse --short "$BASE") instructions | head instructions | head/base | base B / allocs | head B / allocs |"
  echo "|---|---|---|---|---|---|"
else
  echo "| request | instructions | B / allocs |"
  echo "|---|---|---|"
fi
declare -A head_ins=() head_mem=() # per kind, for the floor's table
for kind in $KINDS; do
  declare -A ins=() mem=()
  for side in "${sides[@]}"; do
    read -r i b a < <(per_request "$work/$side.test" "$kind")
    ins[$side]=$i mem[$side]="$b / $a"
    if [ "$side" = head ]; then head_ins[$kind]=$i head_mem[$kind]="$b / $a"; fi
  done
  if [ -n "$BASE" ]; then
    printf '| %s | %s | %s | %s | %s | %s |\n' "$kind" "${ins[base]}" "${ins[head]}" \
      "$(awk -v a="${ins[head]}" -v b="${ins[base]}" 'BEGIN { printf "%.3f", a / b }')" "${mem[base]}" "${mem[head]}"
  else
    printf '| %s | %s | %s |\n' "$kind" "${ins[head]}" "${mem[head]}"
  fi
done

if [ -n "${FLOOR:-}" ]; then
  # The floor's handler (bench/floor, BenchmarkFloor) beside this tree's, for the floor-* kinds.
  echo
  echo "| request | Skiff instructions | floor instructions | Skiff/floor | bare floor instructions | Skiff/bare | Skiff B / allocs | floor B / allocs | bare B / allocs |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for kind in $KINDS; do
    [[ $kind == floor-* ]] || continue
    read -r fi fb fa < <(per_request "$work/floor.test" "$kind")
    read -r bi bb ba < <(per_request "$work/floor.test" "floor-bare-${kind#floor-}")
    printf '| %s | %s | %s | %s | %s | %s | %s | %s / %s | %s / %s |\n' "$kind" "${head_ins[$kind]}" "$fi" \
      "$(awk -v a="${head_ins[$kind]}" -v b="$fi" 'BEGIN { printf "%.3f", a / b }')" "$bi" \
      "$(awk -v a="${head_ins[$kind]}" -v b="$bi" 'BEGIN { printf "%.3f", a / b }')" "${head_mem[$kind]}" "$fb" "$fa" "$bb" "$ba"
  done
fi
