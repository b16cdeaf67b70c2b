#!/usr/bin/env bash
# Live heap per idle socket: serves a copy of the example app with the admin listener, connects N
# watching sockets with bench/rtload and reads HeapAlloc from /debug/pprof/heap after a forced
# collection, before and with the sockets. Unlike RSS it does not depend on when the runtime last
# collected. Compare builds in turns:
#
#   bench/rtheap.sh /tmp/skiff-old /tmp/skiff-new /tmp/skiff-old /tmp/skiff-new
#
# N (default 3000) sockets; loopback ports PORT (default 18437) and PORT+1.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-3000}
PORT=${PORT:-18437}
adm=$((PORT + 1))
ulimit -n "$(ulimit -Hn)"
work=$(mktemp -d)
pid=
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/rtload" ./bench/rtload
heap() { curl -s "http://127.0.0.1:$adm/debug/pprof/heap?gc=1&debug=1" | awk '/^# HeapAlloc/{print $4}'; }
for bin in "$@"; do
  rm -rf "$work/app"
  cp -r examples/petshop "$work/app"
  rm -rf "$work/app/.tmp"
  env SKIFF_ENV=development SKIFF_SOCKETS__MAXCONNECTIONSPERIP=-1 \
    "$bin" serve --app "$work/app" --port "$PORT" --host 127.0.0.1 --admin "127.0.0.1:$adm" >"$work/log" 2>&1 &
  pid=$!
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PORT/product?limit=1" >/dev/null && break; sleep 0.1; done
  h0=$(heap)
  "$work/rtload" -url "http://127.0.0.1:$PORT" -mode idle -watchers "$N" -settle 12s -pid "$pid" >"$work/out" 2>&1 &
  load=$!
  sleep 8
  h1=$(heap)
  wait "$load"
  echo "$bin: $N sockets: live heap $(( (h1 - h0) / N )) bytes per socket; $(grep -o 'kb_per_socket=[0-9.]*' "$work/out") KiB RSS"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=
done
