#!/usr/bin/env bash
# Skiff beside real Sails 1.5, measured in the same run on the same machine: the reference the
# issues' speed targets ("at least 10x real Sails") are ratios against. Real Sails comes from npm
# (bench/sails: the petshop models as a Sails app, versions pinned by its package-lock.json).
#
# For each store pair — sails-disk vs Skiff's SQLite, sails-postgresql vs Skiff's PostgreSQL,
# sails-mysql vs Skiff's MySQL (STORES=mysql; MariaDB here) —
# it starts Sails and Skiff side by side, seeds both with the rows bench/run.sh seeds, checks
# that every endpoint answers 200, then loads each endpoint with wrk, Sails then Skiff, ROUNDS
# times over, and keeps each side's median. Alternating keeps the machine's drift (its speed can
# move by a sixth within minutes) out of the ratio: measured one whole side after the other, the
# same builds gave replace ratios of 12.4x and 7.3x ten minutes apart. It prints endpoint,
# connections, Sails req/s, Skiff req/s and Skiff/Sails, and fails when the two answered any
# endpoint with JSON of a different shape (keys, value types, array lengths), since those
# figures would compare different work.
#
#   bench/compare.sh                                # the three pairs, 2 connections, 3 rounds of 5 s
#   DURATION=3s ROUNDS=5 CONNS="2 4" STORES=sqlite bench/compare.sh
#   BASE=main~3 bench/compare.sh                    # also an older Skiff: before/after, same run
#   SAILS_PORT=28637 SKIFF_PORT=28638 BASE_PORT=28639 bench/compare.sh  # beside another run
#
# With BASE (a git revision), Skiff as built from that revision is served too, on the same store,
# and loaded in the same alternation; the table gains its req/s and this tree's ratio to it. That
# is how a change shows it costs nothing: before and after measured in one run, side by side.
#
# Needs node and npm (runs `npm ci` in bench/sails once), wrk, curl, jq, psql, mysql. PostgreSQL: Skiff
# uses the schema skiff_bench_compare of $SKIFF_BENCH_POSTGRES_URL (default: the `test` database);
# sails-postgresql always writes to "public", so Sails gets a database of its own,
# skiff_bench_sails, on the same server. Both are dropped and created afresh each run. MySQL:
# Skiff and Sails each get a database of their own (skiff_bench_compare, skiff_bench_sails) on
# $SKIFF_BENCH_MYSQL_URL's server (default mysql://root@127.0.0.1:3306), made afresh each run
# with the mysql client.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-5s}
ROUNDS=${ROUNDS:-3}
CONNS=${CONNS:-2}
STORES=${STORES:-"sqlite postgres mysql"}
PG_URL=${SKIFF_BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
SAILS_DB=skiff_bench_sails
MY_SERVER=${SKIFF_BENCH_MYSQL_URL:-mysql://root@127.0.0.1:3306}
PG_SERVER=${PG_URL%%\?*}
PG_SERVER=${PG_SERVER%/*}
SAILS_PORT=${SAILS_PORT:-18637}
SKIFF_PORT=${SKIFF_PORT:-18638}
BASE_PORT=${BASE_PORT:-18639}
BASE=${BASE:-}
. bench/lib.sh
for tool in wrk curl jq node npm; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is missing" >&2; exit 1; }
done

# A server already on one of the ports (another run) would answer for ours.
for port in $SAILS_PORT $SKIFF_PORT $BASE_PORT; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "bench: port $port is in use (another compare.sh?); set SAILS_PORT, SKIFF_PORT, BASE_PORT" >&2; exit 1
  fi
done

work=$(mktemp -d)
declare -A pid=() # side -> the server's process
trap 'bench_stop_servers; if [ -n "$BASE" ]; then git worktree remove --force "$work/base-src" 2>/dev/null || true; fi; rm -rf "$work"' EXIT

if [ ! -d bench/sails/node_modules ]; then
  (cd bench/sails && npm ci --no-audit --no-fund --loglevel=error)
fi
bench_build "$work/skiff" ./cmd/skiff
cp -r examples/petshop "$work/app"
rm -rf "$work/app/.tmp"
sides=(sails skiff)
if [ -n "$BASE" ]; then
  git worktree add -q --detach "$work/base-src" "$BASE"
  (cd "$work/base-src" && bench_build "$work/skiff-base" ./cmd/skiff)
  cp -r "$work/base-src/examples/petshop" "$work/base-app"
  sides+=(base)
fi

start_sails() { # store
  local envs=(PORT=$SAILS_PORT "SAILS_BENCH_DISK_DIR=$work/sails-disk")
  if [ "$1" = postgres ]; then
    PGOPTIONS=--client-min-messages=warning psql "$PG_URL" -qc "DROP DATABASE IF EXISTS $SAILS_DB" -c "CREATE DATABASE $SAILS_DB" >/dev/null
    envs+=("SAILS_BENCH_POSTGRES_URL=$PG_SERVER/$SAILS_DB")
  fi
  if [ "$1" = mysql ]; then
    bench_mysql_fresh "$MY_SERVER" "$SAILS_DB"
    envs+=("SAILS_BENCH_MYSQL_URL=$MY_SERVER/$SAILS_DB")
  fi
  rm -rf "$work/sails-disk"
  env "${envs[@]}" node bench/sails/app.js >"$work/sails-$1.log" 2>&1 &
  pid[sails]=$!
}

start_skiff() { # store
  rm -rf "$work/app/.tmp"
  bench_skiff_start "$work/skiff" "$work/app" "$1" "$SKIFF_PORT" "$work/skiff-$1.log" "$(server_of "$1")" skiff_bench_compare
  pid[skiff]=$BENCH_PID
}

server_of() { # store: the server URL bench_skiff_start wants
  if [ "$1" = mysql ]; then echo "$MY_SERVER"; else echo "$PG_URL"; fi
}

start_base() { # store
  rm -rf "$work/base-app/.tmp"
  bench_skiff_start "$work/skiff-base" "$work/base-app" "$1" "$BASE_PORT" "$work/base-$1.log" "$(server_of "$1")" skiff_bench_base
  pid[base]=$BENCH_PID
}

# shape: the JSON's structure — keys with the types of their values, array lengths with the shape
# of their first element — so Sails' and Skiff's answers compare without their ids and times.
shape() {
  jq -cS 'def shape: if type == "object" then with_entries(.value |= shape)
    elif type == "array" then [length, (if length > 0 then (.[0] | shape) else null end)]
    else type end; shape'
}

# probe label path [script]: one request like the ones wrk sends, to $side; records status and
# shape.
probe() {
  local label=$1 url=${url_of[$side]}$2 script=${3:-} args=() status
  case "$script" in
    *post.lua) args=(-X POST -H 'content-type: application/json' -d '{"name":"Probe","sku":"probe","price":9.5,"stock":3}') ;;
    *replace.lua) args=(-X PUT -H 'content-type: application/json' -d '[1,2,3,4,5,6,7,8,9,10]') ;;
  esac
  status=$(curl -s -o "$work/body" -w '%{http_code}' "${args[@]}" "$url")
  if [ "$status" != 200 ]; then
    echo "bench: $side $label answered $status:" >&2; head -c 2000 "$work/body" >&2; echo >&2
    exit 1
  fi
  shapes["$label"]+="$(shape <"$work/body")"$'\n'
}

# store_name store: the pair of stores compared.
store_name() {
  case "$1" in
    sqlite) echo "sails-disk / SQLite" ;;
    mysql) echo "sails-mysql / MySQL (MariaDB)" ;;
    *) echo "sails-postgresql / PostgreSQL" ;;
  esac
}

# load label path [script]: each side's median req/s at each connection count, over ROUNDS
# rounds of one run per side.
load() {
  local label=$1 path=$2 script=${3:-} conns round side rps p99
  local -A runs=()
  for conns in $CONNS; do
    runs=()
    for round in $(seq 1 "$ROUNDS"); do
      for side in "${sides[@]}"; do
        read -r rps p99 < <(bench_wrk "$conns" "$DURATION" "${url_of[$side]}$path" "$script")
        runs[$side]+="$rps "
      done
    done
    for side in "${sides[@]}"; do
      rate["$store|$side|$label|$conns"]=$(median ${runs[$side]})
    done
  done
}

# median N...: the middle one of the numbers, or the mean of the middle two.
median() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

declare -A rate=() shapes=() rss=() differs=()
declare -A url_of=([sails]=http://127.0.0.1:$SAILS_PORT [skiff]=http://127.0.0.1:$SKIFF_PORT [base]=http://127.0.0.1:$BASE_PORT)
order=()
remember() { order+=("$1"); }
bench_endpoints remember ""

for store in $STORES; do
  shapes=()
  for side in "${sides[@]}"; do
    "start_$side" "$store"
    if ! bench_wait_up "${url_of[$side]}/product?limit=1"; then cat "$work/$side-$store.log" >&2; exit 1; fi
    echo "bench: $store: seeding $side" >&2
    bench_seed_products "${url_of[$side]}"
    if [ "${ASSOC:-1}" = 1 ]; then bench_seed_associations "${url_of[$side]}"; fi
    # The older build's answers may differ where this change meant them to: only Sails and
    # this tree are held to the same shapes.
    if [ "$side" != base ]; then bench_endpoints probe ""; fi
  done
  echo "bench: $store: loading ${sides[*]}, $ROUNDS rounds" >&2
  bench_endpoints load ""
  for side in "${sides[@]}"; do
    rss["$store|$side"]=$(( $(awk '/VmRSS/ {print $2}' "/proc/${pid[$side]}/status") / 1024 ))
  done
  bench_stop_servers
  for label in "${order[@]}"; do
    # Both sides' shapes, one per line: they must be the same line twice.
    if [ "$(sort -u <<<"${shapes[$label]%$'\n'}" | wc -l)" != 1 ]; then
      printf 'bench: %s: %s answers differ in shape (sails, then skiff):\n%s' "$store" "$label" "${shapes[$label]}" >&2
      differs["$store|$label"]=1
    fi
  done
done

if [ -n "$BASE" ]; then
  echo "| store | endpoint | conns | Sails req/s | Skiff req/s | Skiff/Sails | Skiff $BASE req/s | Skiff/$BASE |"
  echo "|---|---|---|---|---|---|---|---|"
else
  echo "| store | endpoint | conns | Sails req/s | Skiff req/s | Skiff/Sails |"
  echo "|---|---|---|---|---|---|"
fi
for store in $STORES; do
  for label in "${order[@]}"; do
    for conns in $CONNS; do
      sails=${rate["$store|sails|$label|$conns"]:-0}
      skiff=${rate["$store|skiff|$label|$conns"]:-0}
      ratio=$(awk -v a="$skiff" -v b="$sails" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }')
      if [ -n "${differs["$store|$label"]:-}" ]; then ratio="$ratio (answers differ in shape)"; fi
      if [ -n "$BASE" ]; then
        base=${rate["$store|base|$label|$conns"]:-0}
        printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$(store_name "$store")" "$label" "$conns" "$sails" "$skiff" "$ratio" \
          "$base" "$(awk -v a="$skiff" -v b="$base" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')"
      else
        printf '| %s | %s | %s | %s | %s | %s |\n' "$(store_name "$store")" "$label" "$conns" "$sails" "$skiff" "$ratio"
      fi
    done
  done
done
for store in $STORES; do
  echo "$(store_name "$store"): resident memory after the load: Sails ${rss["$store|sails"]} MiB, Skiff ${rss["$store|skiff"]} MiB${BASE:+, Skiff $BASE ${rss["$store|base"]} MiB}"
done
# Figures of answers that differ are no comparison: fail, after printing them.
if [ "${#differs[@]}" -gt 0 ]; then exit 1; fi
