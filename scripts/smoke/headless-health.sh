#!/bin/bash
# Starts a headless Gatehouse command on free loopback ports and checks that both services
# answer within the deadline (10 s by default): the parcel service's GET /api/v1/health, and the
# proxy service's GET /api/v1/health.
# Then it stops the command with SIGTERM and expects a clean exit. The release workflow runs it on the installed deb inside a clean
# container without a display (`gatehouse --headless`); npm test runs it on the checkout.
#
#   scripts/smoke/headless-health.sh COMMAND [ARGS...]
#
# The services' options (data dir, host, ports) are appended to the command. Environment:
# SMOKE_DEADLINE (seconds, default 10), SMOKE_DATA_DIR (default: a new temporary folder).
set -euo pipefail

if [ $# -eq 0 ]; then
  echo "usage: $0 COMMAND [ARGS...]" >&2
  exit 2
fi
deadline="${SMOKE_DEADLINE:-10}"
data="${SMOKE_DATA_DIR:-$(mktemp -d)}"
log="$(mktemp)"
command="$*"

"$@" --data-dir "$data" --host 127.0.0.1 --parcel-port 0 --proxy-port 0 >"$log" 2>&1 &
pid=$!
started=$(date +%s%N)

fail() {
  echo "smoke: $1" >&2
  echo "--- output of: $command" >&2
  cat "$log" >&2
  kill -KILL "$pid" 2>/dev/null || true
  exit 1
}

elapsed_ms() { echo $((($(date +%s%N) - started) / 1000000)); }

# The services print "parcel service listening on <url>" and "proxy service listening on <url>".
url_of() { sed -n "s/^$1 service listening on \(http:[^ ]*\)$/\1/p" "$log" | head -n 1; }

healthy=""
while [ "$(elapsed_ms)" -lt $((deadline * 1000)) ]; do
  if ! kill -0 "$pid" 2>/dev/null; then
    wait "$pid" && code=0 || code=$?
    fail "the command ended (exit code $code) before both services answered"
  fi
  parcel="$(url_of parcel)"
  proxy="$(url_of proxy)"
  if [ -n "$parcel" ] && [ -n "$proxy" ] &&
    curl -fsS --max-time 2 "$parcel/api/v1/health" >/dev/null 2>&1 &&
    curl -fsS --max-time 2 "$proxy/api/v1/health" >/dev/null 2>&1; then
    healthy="$(elapsed_ms)"
    break
  fi
  sleep 0.2
done
[ -n "$healthy" ] || fail "the services did not both answer within ${deadline} s"
echo "smoke: $parcel and $proxy answered ${healthy} ms after the start"

# A clean stop: SIGTERM, as systemd and docker send it.
kill -TERM "$pid"
for _ in $(seq 1 150); do
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
if kill -0 "$pid" 2>/dev/null; then fail "the services did not stop within 15 s of SIGTERM"; fi
wait "$pid" && code=0 || code=$?
[ "$code" -eq 0 ] || fail "the services stopped with exit code $code after SIGTERM"
echo "smoke: stopped cleanly"
