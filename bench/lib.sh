# Helpers shared by the bench scripts (source this file; it runs nothing).
# They load servers on 127.0.0.1 only, and every wait is bounded.

# bench_build OUT PKG: builds the server PKG into OUT the way a release binary is built
# (docs/operating.md): static, without cgo. Every server a script measures, Skiff and the
# hand-written floors alike, is built so, so that none carries libc and the dynamic loader
# (about 1 MiB resident) that the others do not.
bench_build() {
  CGO_ENABLED=0 go build -o "$1" "$2"
}

# bench_wait_up URL: waits up to 60 s for URL to answer 2xx; fails otherwise.
bench_wait_up() {
  local _
  for _ in $(seq 1 600); do
    curl -sf -o /dev/null "$1" && return 0
    sleep 0.1
  done
  echo "bench: $1 did not answer within 60 s" >&2
  return 1
}

# bench_post BASE PATH JSON: one create; fails on a non-2xx answer.
bench_post() {
  curl -sf -o /dev/null -H 'content-type: application/json' -d "$3" "$1$2" ||
    { echo "bench: POST $2 $3 failed" >&2; return 1; }
}

# bench_seed_products BASE: 100 products (the plain model, no associations).
bench_seed_products() {
  local i
  for i in $(seq 1 100); do
    bench_post "$1" /product "{\"name\":\"Product $i\",\"sku\":\"seed-$i\",\"price\":$i,\"stock\":$i}"
  done
}

# bench_seed_associations BASE: 100 users with 10 pets each (one-to-many) and 100 tags with 10
# pets each (many-to-many).
bench_seed_associations() {
  local u p t first
  for u in $(seq 1 100); do
    bench_post "$1" /user "{\"name\":\"User $u\",\"email\":\"user$u@example.com\"}"
  done
  for p in $(seq 1 1000); do
    bench_post "$1" /pet "{\"name\":\"Pet $p\",\"owner\":$(( (p + 9) / 10 ))}"
  done
  for t in $(seq 1 100); do
    first=$(( (t - 1) * 10 + 1 ))
    bench_post "$1" /tag "{\"label\":\"tag $t\",\"pets\":[$(seq -s, "$first" $((first + 9)))]}"
  done
}

# bench_endpoints FN BASE: calls `FN label url [wrk script]` for each measured endpoint; the
# association endpoints only when ASSOC is 1 (the default).
bench_endpoints() {
  local fn=$1 base=$2 dir
  dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  "$fn" "GET /product/:id" "$base/product/42"
  "$fn" "GET /product?limit=30" "$base/product?limit=30"
  "$fn" "POST /product" "$base/product" "$dir/post.lua"
  if [ "${ASSOC:-1}" = 1 ]; then
    "$fn" "GET /user?limit=30 (1-n x10)" "$base/user?limit=30"
    "$fn" "GET /tag?limit=30 (n-n x10)" "$base/tag?limit=30"
    "$fn" "PUT /tag/1/pets (10 ids)" "$base/tag/1/pets" "$dir/replace.lua"
  fi
}

# bench_wrk CONNS DURATION URL [SCRIPT]: loads URL with wrk and prints "req/s p99". A run with
# non-2xx answers or socket errors is printed on stderr, so a broken endpoint is never
# mistaken for a fast one.
bench_wrk() {
  local conns=$1 duration=$2 url=$3 script=${4:-} out
  if [ -n "$script" ]; then
    # The script's argument makes POST bodies unique across runs (see post.lua).
    out=$(wrk -t"$conns" -c"$conns" -d"$duration" --latency -s "$script" "$url" -- "n$conns$RANDOM$RANDOM")
  else
    out=$(wrk -t"$conns" -c"$conns" -d"$duration" --latency "$url")
  fi
  if grep -qE "Non-2xx|Socket errors" <<<"$out"; then
    printf 'bench: %s had errors:\n%s\n' "$url" "$out" >&2
  fi
  printf '%s %s\n' "$(awk '/Requests\/sec/ {print $2}' <<<"$out")" "$(awk '$1=="99%" {print $2}' <<<"$out")"
}

# bench_cpu_ticks PID: the process's user plus system CPU time so far, in clock ticks (/proc).
bench_cpu_ticks() {
  awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# bench_machine_ticks: the machine's CPU time so far in clock ticks, all of it and the part its
# hypervisor took for others (steal, /proc/stat): "total steal".
bench_machine_ticks() {
  awk '$1 == "cpu" { t = 0; for (i = 2; i <= 9; i++) t += $i; print t, $9 }' /proc/stat
}

# bench_steal T0 S0: the share of CPU time stolen since bench_machine_ticks gave "T0 S0", in %.
# On a shared VM req/s fall with it while CPU per request moves less; a run with much steal is
# better repeated.
bench_steal() {
  local t s
  read -r t s < <(bench_machine_ticks)
  awk -v t="$((t - $1))" -v s="$((s - $2))" 'BEGIN { printf "%.1f", t ? 100 * s / t : 0 }'
}

# bench_wrk_cpu PID CONNS DURATION URL [SCRIPT]: like bench_wrk, and also the CPU time the
# server PID spent per request (µs, user plus system, from /proc): "req/s p99 cpu-µs db-cpu-µs".
# CPU per request moves far less with the machine's load than req/s does. db-cpu-µs is the same
# for the process BENCH_DB_PID (a database server nothing else uses), or "-" when it is unset.
bench_wrk_cpu() {
  local pid=$1 conns=$2 duration=$3 url=$4 script=${5:-} out t0 t1 d0=0 d1=0 hz db=-
  hz=$(getconf CLK_TCK)
  t0=$(bench_cpu_ticks "$pid")
  if [ -n "${BENCH_DB_PID:-}" ]; then d0=$(bench_cpu_ticks "$BENCH_DB_PID"); fi
  if [ -n "$script" ]; then
    out=$(wrk -t"$conns" -c"$conns" -d"$duration" --latency -s "$script" "$url" -- "n$conns$RANDOM$RANDOM")
  else
    out=$(wrk -t"$conns" -c"$conns" -d"$duration" --latency "$url")
  fi
  t1=$(bench_cpu_ticks "$pid")
  if [ -n "${BENCH_DB_PID:-}" ]; then
    d1=$(bench_cpu_ticks "$BENCH_DB_PID")
    db=$(awk -v t="$((d1 - d0))" -v hz="$hz" '/requests in/ { printf "%.1f", t / hz * 1e6 / $1 }' <<<"$out")
  fi
  if grep -qE "Non-2xx|Socket errors" <<<"$out"; then
    printf 'bench: %s had errors:\n%s\n' "$url" "$out" >&2
  fi
  printf '%s %s %s %s\n' "$(awk '/Requests\/sec/ {print $2}' <<<"$out")" "$(awk '$1=="99%" {print $2}' <<<"$out")" \
    "$(awk -v t="$((t1 - t0))" -v hz="$hz" '/requests in/ { printf "%.1f", t / hz * 1e6 / $1 }' <<<"$out")" "$db"
}

# bench_mysql_fresh SERVER DB: drops and creates database DB on the MySQL server SERVER
# (mysql://user[:password]@host:port) with the mysql client.
bench_mysql_fresh() {
  local rest=${1#*://} creds host port pass=
  creds=${rest%@*}; host=${rest##*@}; port=${host##*:}; host=${host%:*}
  if [[ $creds == *:* ]]; then pass=${creds#*:}; fi
  MYSQL_PWD=$pass mysql -h"$host" -P"$port" -u"${creds%%:*}" \
    -e "DROP DATABASE IF EXISTS \`$2\`; CREATE DATABASE \`$2\` CHARACTER SET utf8mb4"
}

# bench_skiff_start BIN APP STORE PORT LOG [SERVER SCHEMA]: serves APP with Skiff in the
# background on 127.0.0.1:PORT and sets BENCH_PID. STORE is sqlite (APP/.tmp), postgres: then
# SCHEMA of the PostgreSQL URL SERVER is dropped and created afresh, so nothing else in that
# database is touched; or mysql: then database SCHEMA on the MySQL server SERVER
# (mysql://user@host:port) is dropped and created afresh.
bench_skiff_start() {
  local bin=$1 app=$2 store=$3 port=$4 log=$5 pg_url=${6:-} schema=${7:-}
  local envs=(SKIFF_ENV=development)
  if [ "$store" = postgres ]; then
    PGOPTIONS=--client-min-messages=warning psql "$pg_url" -qc "DROP SCHEMA IF EXISTS $schema CASCADE; CREATE SCHEMA $schema" >/dev/null
    envs+=(SKIFF_DATASTORES__DEFAULT__ADAPTER=postgres "SKIFF_DATASTORES__DEFAULT__URL=$pg_url&search_path=$schema")
  fi
  if [ "$store" = mysql ]; then
    bench_mysql_fresh "$pg_url" "$schema"
    envs+=(SKIFF_DATASTORES__DEFAULT__ADAPTER=mysql "SKIFF_DATASTORES__DEFAULT__URL=$pg_url/$schema")
  fi
  env "${envs[@]}" "$bin" serve --app "$app" --port "$port" --host 127.0.0.1 >"$log" 2>&1 &
  BENCH_PID=$!
}

# bench_stop_servers: stops every server in the caller's associative array pid (name -> process)
# and waits for it, then empties the array. Scripts call it between store pairs and at exit.
bench_stop_servers() {
  local side
  for side in "${!pid[@]}"; do
    kill "${pid[$side]}" 2>/dev/null || true
    wait "${pid[$side]}" 2>/dev/null || true
  done
  pid=()
}
