#!/bin/bash
# Inside a clean container: installs the deb with only what it depends on (no recommended
# packages, no display server), checks that its binary finds every library it links, then runs
# `gatehouse --headless` (the command the package puts on PATH) through headless-health.sh.
#
#   deb-install-and-run.sh /path/to/gatehouse.deb
set -euo pipefail
deb="${1:?usage: $0 PACKAGE.deb}"
here="$(cd "$(dirname "$0")" && pwd)"

apt-get update -qq
apt-get install -y -qq --no-install-recommends "$deb" curl ca-certificates >/dev/null

if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  echo "smoke: this check must run without a display" >&2
  exit 1
fi
missing="$(ldd /opt/Gatehouse/gatehouse | grep 'not found' || true)"
if [ -n "$missing" ]; then
  echo "smoke: the package does not bring every library the app links:" >&2
  echo "$missing" >&2
  exit 1
fi
echo "smoke: $(command -v gatehouse) -> $(readlink -f "$(command -v gatehouse)")"
exec bash "$here/headless-health.sh" gatehouse --headless
