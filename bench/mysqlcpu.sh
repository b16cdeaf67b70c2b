#!/usr/bin/env bash
# CPU time per request of Skiff and of its MySQL/MariaDB server, for the MySQL endpoints of
# bench/compare.sh: a measure that holds on a busy machine, where req/s do not. Each Skiff (this
# tree, and BASE when set) serves a database of its own on the server, seeded as compare.sh
# seeds; each endpoint is loaded with wrk, the Skiffs alternating, ROUNDS times; the CPU time
# the Skiff process and the server process used during the load (utime + stime, /proc), divided
# by the requests served, is printed per run. The server's time counts everything it did, so
# run it on a server nothing else uses (a private mariadbd, see docs/performance.md).
#
#   BASE=main SKIFF_BENCH_MYSQL_URL=mysql://root@127.0.0.1:18799 MYSQLD_PID=$(cat /tmp/my/pid) bench/mysqlcpu.sh
#
# MYSQLD_PID defaults to the pid in the server's @@pid_file (a local server); PORT (18700) and
# PORT+1 are Skiff's ports; DURATION (4s), ROUNDS (3), CONNS (2), ENDPOINTS ("get list post user tag").
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
SERVER=${SKIFF_BENCH_MYSQL_URL:-mysql://root@127.0.0.1:3306}
PORT=${PORT:-18700}
DURATION=${DURATION:-4s}
ROUNDS=${ROUNDS:-3}
CONNS=${CONNS:-2}
BASE=${BASE:-}
rest=${SERVER#*://}; host=${rest##*@}; myport=${host##*:}; host=${host%:*}; creds=${rest%@*}
sql() { MYSQL_PWD=${creds#*:} mysql -h"$host" -P"$myport" -u"${creds%%:*}" -N -e "$1"; }
if [[ $creds != *:* ]]; then sql() { mysql -h"$host" -P"$myport" -u"$creds" -N -e "$1"; }; fi
MYSQLD_PID=${MYSQLD_PID:-$(cat "$(sql 'SELECT @@pid_file')")}
hz=$(getconf CLK_TCK)
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

work=$(mktemp -d)
declare -a pids=() urls=() names=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT
go build -o "$work/skiff-0" ./cmd/skiff
names+=(this)
if [ -n "$BASE" ]; then
  mkdir "$work/base-src"
  git archive "$BASE" | tar -x -C "$work/base-src"
  (cd "$work/base-src" && go build -o "$work/skiff-1" ./cmd/skiff)
  names+=("$BASE")
fi
for i in "${!names[@]}"; do
  cp -r examples/petshop "$work/app-$i"; rm -rf "$work/app-$i/.tmp"
  bench_skiff_start "$work/skiff-$i" "$work/app-$i" mysql $((PORT + i)) "$work/skiff-$i.log" "$SERVER" "skiff_bench_cpu_$i"
  pids+=("$BENCH_PID"); urls+=("http://127.0.0.1:$((PORT + i))")
done
for i in "${!names[@]}"; do
  bench_wait_up "${urls[$i]}/product?limit=1" || { cat "$work/skiff-$i.log" >&2; exit 1; }
  echo "bench: seeding ${names[$i]}" >&2
  bench_seed_products "${urls[$i]}"; bench_seed_associations "${urls[$i]}"
done

measure() { # label path [script]
  local label=$1 path=$2 script=${3:-} round i out n s0 m0 s1 m1
  for round in $(seq 1 "$ROUNDS"); do
    for i in "${!names[@]}"; do
      s0=$(ticks "${pids[$i]}"); m0=$(ticks "$MYSQLD_PID")
      if [ -n "$script" ]; then
        out=$(wrk -t"$CONNS" -c"$CONNS" -d"$DURATION" -s "$script" "${urls[$i]}$path" -- "c$i$RANDOM$RANDOM")
      else
        out=$(wrk -t"$CONNS" -c"$CONNS" -d"$DURATION" "${urls[$i]}$path")
      fi
      s1=$(ticks "${pids[$i]}"); m1=$(ticks "$MYSQLD_PID")
      if grep -qE "Non-2xx|Socket errors" <<<"$out"; then printf 'bench: %s had errors:\n%s\n' "$path" "$out" >&2; fi
      n=$(awk '/requests in/ {print $1}' <<<"$out")
      awk -v l="$label" -v who="${names[$i]}" -v n="$n" -v s=$((s1 - s0)) -v m=$((m1 - m0)) -v hz="$hz" \
        -v rps="$(awk '/Requests\/sec/ {print $2}' <<<"$out")" \
        'BEGIN { printf "| %s | %s | %.0f | %.3f | %.3f | %.3f |\n", l, who, rps, s*1000/hz/n, m*1000/hz/n, (s+m)*1000/hz/n }'
    done
  done
}
echo "| endpoint | Skiff | req/s | Skiff CPU ms/req | server CPU ms/req | sum |"
echo "|---|---|---|---|---|---|"
for e in ${ENDPOINTS:-get list post user tag}; do
  case $e in
    get) measure "GET /product/:id" /product/42 ;;
    list) measure "GET /product?limit=30" "/product?limit=30" ;;
    post) measure "POST /product" /product bench/post.lua ;;
    user) measure "GET /user?limit=30" "/user?limit=30" ;;
    tag) measure "GET /tag?limit=30" "/tag?limit=30" ;;
  esac
done
