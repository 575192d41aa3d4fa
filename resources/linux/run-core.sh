#!/bin/sh
# Starts the proxy core for gatehouse-mihomo.service: the core Gatehouse installed in
# <data-dir>/core when there is one, else the one shipped with the app, with its home and
# configuration where the services write them (<data-dir>/proxy/core/config.yaml).
set -eu
data="${1:?usage: run-core.sh DATA_DIR}"
home="$data/proxy/core"
core="$data/core/mihomo"
[ -x "$core" ] || core=/opt/Gatehouse/resources/core/mihomo
exec "$core" -d "$home" -f "$home/config.yaml"
