#!/bin/bash
# Installs the deb in a clean debian:bookworm container (no display, nothing but what the
# package depends on) and runs `gatehouse --headless` there until both services answer their
# health check (deb-install-and-run.sh). Runs on the release workflow's Linux runner.
#
#   scripts/smoke/deb-in-container.sh release/gatehouse_<version>_amd64.deb
set -euo pipefail
deb="$(readlink -f "${1:?usage: $0 PACKAGE.deb}")"
here="$(cd "$(dirname "$0")" && pwd)"
exec docker run --rm \
  -e DEBIAN_FRONTEND=noninteractive \
  -v "$deb:/smoke/gatehouse.deb:ro" \
  -v "$here:/smoke/scripts:ro" \
  debian:bookworm \
  bash /smoke/scripts/deb-install-and-run.sh /smoke/gatehouse.deb
