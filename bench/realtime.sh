#!/usr/bin/env bash
# Realtime benchmark: serves a copy of the example app (SQLite in a temp dir) and loads its sockets
# with bench/rtload, a separate Go process speaking socket.io over WebSocket (EIO=4, sails.io.js
# SDK query). Each mode gets a fresh server and database. The four scenarios of issue #23 (the
# default MODES) report the server's CPU per delivered notification (user+system from
# /proc/PID/stat, from the measured window's start until the last notification arrived, divided by
# the notifications delivered meanwhile) and its RSS, which do not depend on what else runs:
#
#   memory      MEM_WATCHERS sockets watch `product`; MEM_CREATES products created by
#               TP_CREATORS clients as fast as answered; the server's RSS once all were delivered
#               (and 3 s passed, as for idle), and its peak (VmHWM).
#   saturation  SAT_WATCHERS sockets watch; TP_CREATORS creators as fast as answered for
#               DURATION: CPU µs per delivery, p99 send→receipt, notifications lost.
#   steady      STEADY_WATCHERS sockets watch; for each rate in STEADY_RATES creates/s: p99
#               send→receipt and CPU µs per delivery.
#   idle        (below) RSS per socket.
#
# And its references, not in the default MODES:
#   sails       saturation against real Sails 1.5 (bench/sails with sockets on: sails-hook-sockets
#               3, socket.io 4; sails-disk) on SAILS_PORT: its server CPU per delivery, beside
#               which issue #23 puts Skiff's target (10x less). Alternate it with saturation
#               (MODES="saturation sails saturation sails") for the ratio in one run.
#   floor       for each rate in STEADY_RATES, bench/rtfloor: the same fan-out (STEADY_WATCHERS
#               loopback TCP sockets, one write each) with nothing of Skiff in it, read as rtload
#               reads; what steady's p99 cannot go below on these cores.
#
# Older modes:
#   throughput  for each count in TP_WATCHERS, that many sockets watch `product` while
#               TP_CREATORS clients POST products as fast as the server answers; notifications
#               delivered per second.
#   latency     LAT_WATCHERS sockets watch; LAT_RATE creates/s; p50/p99 of send→receipt and of
#               createdAt→receipt (see bench/rtload/main.go for what exactly is measured).
#   idle        IDLE_SOCKETS sockets connect, watch and sit idle; the server's RSS growth
#               (/proc/PID/status VmRSS) per socket.
#   cluster     for each bus in BUSES (redis nats: the machine's servers on their default
#               ports), two instances of the app linked by the bus (sockets.adapter), the
#               watchers on the first and the creates on the second: throughput with
#               CL_WATCHERS watchers, then latency as above. Compare with throughput and latency
#               on one instance (TP_WATCHERS=$CL_WATCHERS MODES="throughput latency cluster").
#
#   bench/realtime.sh
#   MODES=latency DURATION=5s bench/realtime.sh
#   SKIFF_BIN=/tmp/skiff-old bench/realtime.sh   # measure another build of Skiff
#
# Loopback only, port $PORT (default 18437). Every phase of rtload is bounded in time.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
PORT=${PORT:-18437}
DURATION=${DURATION:-10s}
MODES=${MODES:-"memory saturation steady idle"}
TP_WATCHERS=${TP_WATCHERS:-"1000 5000"}
TP_CREATORS=${TP_CREATORS:-4}
MEM_WATCHERS=${MEM_WATCHERS:-1000}
MEM_CREATES=${MEM_CREATES:-20000}
SAT_WATCHERS=${SAT_WATCHERS:-1000}
STEADY_WATCHERS=${STEADY_WATCHERS:-1000}
STEADY_RATES=${STEADY_RATES:-"20 80"}
LAT_WATCHERS=${LAT_WATCHERS:-1000}
LAT_RATE=${LAT_RATE:-100}
IDLE_SOCKETS=${IDLE_SOCKETS:-10000}
BUSES=${BUSES:-"redis nats"}
SAILS_PORT=${SAILS_PORT:-$((PORT + 200))}
CL_WATCHERS=${CL_WATCHERS:-1000}

# Each socket is a file descriptor in the server and one in rtload.
ulimit -n "$(ulimit -Hn)"
most=$(printf '%s\n' $TP_WATCHERS "$LAT_WATCHERS" "$IDLE_SOCKETS" "$MEM_WATCHERS" "$SAT_WATCHERS" "$STEADY_WATCHERS" | sort -n | tail -1)
if [ "$(ulimit -n)" -lt $((most + 500)) ]; then
  echo "bench: open-file limit $(ulimit -n) is too low for $most sockets" >&2
  exit 1
fi

work=$(mktemp -d)
pid=
pid2=
trap 'for p in $pid $pid2; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT
skiff=${SKIFF_BIN:-$work/skiff}
[ -n "${SKIFF_BIN:-}" ] || bench_build "$skiff" ./cmd/skiff
go build -o "$work/rtload" ./bench/rtload
bench_build "$work/rtfloor" ./bench/rtfloor
url=http://127.0.0.1:$PORT
if [[ " $MODES " == *" sails "* ]] && [ ! -d bench/sails/node_modules/sails-hook-sockets ]; then
  (cd bench/sails && npm ci --no-audit --no-fund --loglevel=error)
fi

start_server() {
  rm -rf "$work/app"
  cp -r examples/petshop "$work/app"
  rm -rf "$work/app/.tmp"
  # No per-IP socket cap: every load socket comes from 127.0.0.1.
  env SKIFF_ENV=development SKIFF_SOCKETS__MAXCONNECTIONSPERIP=-1 \
    "$skiff" serve --app "$work/app" --port "$PORT" --host 127.0.0.1 >"$work/server.log" 2>&1 &
  pid=$!
  bench_wait_up "$url/product?limit=1" || { cat "$work/server.log" >&2; exit 1; }
}

stop_server() {
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=
}

# start_pair BUS starts two instances of the app, on PORT and PORT+1, linked by BUS.
start_pair() {
  local bus_url
  case $1 in
  redis) bus_url=redis://127.0.0.1:6379 ;;
  nats) bus_url=nats://127.0.0.1:4222 ;;
  *) echo "bench: unknown bus $1" >&2; exit 1 ;;
  esac
  rm -rf "$work/app"
  cp -r examples/petshop "$work/app"
  rm -rf "$work/app/.tmp"
  local p
  for p in "$PORT" "$((PORT + 1))"; do
    env SKIFF_ENV=development SKIFF_SOCKETS__MAXCONNECTIONSPERIP=-1 SKIFF_SOCKETS__ADAPTER="$1" \
      SKIFF_SOCKETS__URL="$bus_url" SKIFF_SOCKETS__KEY="skiffbench$$" \
      "$skiff" serve --app "$work/app" --port "$p" --host 127.0.0.1 >"$work/server$p.log" 2>&1 &
    if [ "$p" = "$PORT" ]; then pid=$!; else pid2=$!; fi
    for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$p/product?limit=1" >/dev/null && continue 2; sleep 0.1; done
    echo "bench: instance on port $p did not start:" >&2
    cat "$work/server$p.log" >&2
    exit 1
  done
}

stop_pair() {
  kill "$pid" "$pid2"
  wait "$pid" "$pid2" 2>/dev/null || true
  pid= pid2=
}

# field NAME LINE prints the value of NAME=value in an rtload RESULT line.
field() { tr ' ' '\n' <<<"$2" | awk -F= -v k="$1" '$1==k {print $2}'; }

# load is the machine's 1-minute load average, and the share of CPU time the hypervisor took
# (steal) since the mode started: other work on the shared cores, or on the host, shows here.
load() { echo "$(cut -d' ' -f1 /proc/loadavg), steal $(bench_steal "$ticks0" "$steal0")%"; }

# cpu LINE is the server's CPU per delivery and rtload's share of the machine in an rtload line.
cpu() {
  local span rt
  span=$(field span_s "$1")
  rt=$(field rtload_cpu_s "$1")
  echo "**$(field cpu_us_per_delivery "$1") µs server CPU/delivery** ($(field server_cpu_s "$1") s over ${span} s; $(field writes_per_delivery "$1") writes/delivery; rtload $(awk -v a="$rt" -v b="$span" 'BEGIN{printf "%.2f", a/b}') cores)"
}

rows=()
for mode in $MODES; do
  read -r ticks0 steal0 < <(bench_machine_ticks)
  case $mode in
  memory)
    start_server
    out=$("$work/rtload" -url "$url" -mode memory -watchers "$MEM_WATCHERS" -creators "$TP_CREATORS" -creates "$MEM_CREATES" -pid "$pid" | grep '^RESULT')
    echo "$out" >&2
    rows+=("| memory | $MEM_WATCHERS watching | $(field creates "$out") by $TP_CREATORS creators | **server RSS $(( $(field rss_after_kb "$out") / 1024 )) MiB** after (peak $(( $(field rss_peak_kb "$out") / 1024 )) MiB); $(field delivered "$out") of $(field expected "$out") delivered; $(cpu "$out") | ≤ 60 MiB | $(load) |")
    stop_server
    ;;
  saturation)
    start_server
    out=$("$work/rtload" -url "$url" -mode throughput -watchers "$SAT_WATCHERS" -creators "$TP_CREATORS" -duration "$DURATION" -pid "$pid" | grep '^RESULT')
    echo "$out" >&2
    rows+=("| saturation | $SAT_WATCHERS watching | $TP_CREATORS creators, as fast as answered: $(field creates_per_s "$out")/s | $(cpu "$out"); $(field delivered_per_s "$out")/s; send→receipt p50 $(field send_p50_ms "$out") / p99 $(field send_p99_ms "$out") ms; $(( $(field expected "$out") - $(field delivered "$out") )) lost, $(field dropped_sockets "$out") sockets dropped | ≤ 2.0 µs, p99 ≤ 100 ms | $(load) |")
    stop_server
    ;;
  steady)
    for rate in $STEADY_RATES; do
      start_server
      out=$("$work/rtload" -url "$url" -mode latency -watchers "$STEADY_WATCHERS" -rate "$rate" -duration "$DURATION" -pid "$pid" | grep '^RESULT')
      echo "$out" >&2
      rows+=("| steady | $STEADY_WATCHERS watching | $(field creates_per_s "$out")/s (asked $rate) | send→receipt p50 $(field send_p50_ms "$out") / **p99 $(field send_p99_ms "$out") ms** / max $(field send_max_ms "$out"); $(cpu "$out"); $(( $(field expected "$out") - $(field delivered "$out") )) lost | p99 ≤ 10 ms at 20/s | $(load) |")
      stop_server
    done
    ;;
  sails)
    rm -rf "$work/sails-disk"
    env SAILS_BENCH_SOCKETS=1 PORT="$SAILS_PORT" SAILS_BENCH_DISK_DIR="$work/sails-disk" \
      node bench/sails/app.js >"$work/sails.log" 2>&1 &
    pid=$!
    bench_wait_up "http://127.0.0.1:$SAILS_PORT/product?limit=1" || { cat "$work/sails.log" >&2; exit 1; }
    out=$("$work/rtload" -url "http://127.0.0.1:$SAILS_PORT" -mode throughput -watchers "$SAT_WATCHERS" -creators "$TP_CREATORS" -duration "$DURATION" -pid "$pid" | grep '^RESULT')
    echo "$out" >&2
    rows+=("| sails saturation | $SAT_WATCHERS watching | $TP_CREATORS creators, as fast as answered: $(field creates_per_s "$out")/s | $(cpu "$out"); $(field delivered_per_s "$out")/s; send→receipt p50 $(field send_p50_ms "$out") / p99 $(field send_p99_ms "$out") ms; $(( $(field expected "$out") - $(field delivered "$out") )) lost, $(field dropped_sockets "$out") sockets dropped | — | $(load) |")
    stop_server
    ;;
  floor)
    for rate in $STEADY_RATES; do
      "$work/rtfloor" -serve -addr "127.0.0.1:$PORT" -watchers "$STEADY_WATCHERS" -rate "$rate" -warmup 1s -duration "$DURATION" &
      pid=$!
      out=$("$work/rtfloor" -addr "127.0.0.1:$PORT" -watchers "$STEADY_WATCHERS" -warmup 1s -pid "$pid" | grep '^RESULT')
      wait "$pid"
      pid=
      echo "$out" >&2
      rows+=("| floor | $STEADY_WATCHERS connections | $rate fan-outs/s | latency p50 $(field send_p50_ms "$out") / **p99 $(field send_p99_ms "$out") ms** / max $(field send_max_ms "$out"); $(field cpu_us_per_delivery "$out") µs server CPU/delivery, reader $(field rtload_cpu_us_per_delivery "$out") µs | — | $(load) |")
    done
    ;;
  throughput)
    for n in $TP_WATCHERS; do
      start_server
      out=$("$work/rtload" -url "$url" -mode throughput -watchers "$n" -creators "$TP_CREATORS" -duration "$DURATION" | grep '^RESULT')
      echo "$out" >&2
      rows+=("| throughput | $n watching | $TP_CREATORS creators, as fast as answered: $(field creates_per_s "$out")/s | **$(field delivered_per_s "$out") notifications/s** delivered; $(field delivered "$out") of $(field expected "$out"), $(field dropped_sockets "$out") sockets dropped | ≥ 200,000/s | $(load) |")
      stop_server
    done
    ;;
  latency)
    start_server
    out=$("$work/rtload" -url "$url" -mode latency -watchers "$LAT_WATCHERS" -rate "$LAT_RATE" -duration "$DURATION" | grep '^RESULT')
    echo "$out" >&2
    rows+=("| latency | $LAT_WATCHERS watching | $(field creates_per_s "$out")/s (asked $LAT_RATE) | send→receipt p50 $(field send_p50_ms "$out") / **p99 $(field send_p99_ms "$out") ms** / max $(field send_max_ms "$out"); createdAt→receipt p50 $(field createdat_p50_ms "$out") / p99 $(field createdat_p99_ms "$out") ms | p99 < 50 ms | $(load) |")
    stop_server
    ;;
  idle)
    start_server
    out=$("$work/rtload" -url "$url" -mode idle -watchers "$IDLE_SOCKETS" -pid "$pid" | grep '^RESULT')
    echo "$out" >&2
    rows+=("| idle | $IDLE_SOCKETS watching | none | **$(field kb_per_socket "$out") KiB RSS per socket** (server VmRSS $(( $(field rss_before_kb "$out") / 1024 )) → $(( $(field rss_after_kb "$out") / 1024 )) MiB) | ≤ 20 KB | $(load) |")
    stop_server
    ;;
  cluster)
    for bus in $BUSES; do
      b_url=http://127.0.0.1:$((PORT + 1))
      start_pair "$bus"
      out=$("$work/rtload" -url "$url" -create-url "$b_url" -mode throughput -watchers "$CL_WATCHERS" -creators "$TP_CREATORS" -duration "$DURATION" | grep '^RESULT')
      echo "$out" >&2
      rows+=("| 2 instances, $bus: throughput | $CL_WATCHERS watching on A | $TP_CREATORS creators on B: $(field creates_per_s "$out")/s | **$(field delivered_per_s "$out") notifications/s** delivered; $(field delivered "$out") of $(field expected "$out"), $(field dropped_sockets "$out") sockets dropped | — | $(load) |")
      stop_pair
      start_pair "$bus"
      out=$("$work/rtload" -url "$url" -create-url "$b_url" -mode latency -watchers "$CL_WATCHERS" -rate "$LAT_RATE" -duration "$DURATION" | grep '^RESULT')
      echo "$out" >&2
      rows+=("| 2 instances, $bus: latency | $CL_WATCHERS watching on A | $(field creates_per_s "$out")/s on B (asked $LAT_RATE) | send→receipt p50 $(field send_p50_ms "$out") / **p99 $(field send_p99_ms "$out") ms** / max $(field send_max_ms "$out") | — | $(load) |")
      stop_pair
    done
    ;;
  *)
    echo "bench: unknown mode $mode" >&2
    exit 1
    ;;
  esac
done

echo "| mode | sockets | creates | result | target | load, steal |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
