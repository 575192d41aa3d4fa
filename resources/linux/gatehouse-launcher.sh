#!/bin/sh
# /usr/bin/gatehouse of the deb package (the after-install script points the command there):
# starts the app installed two folders up (/opt/Gatehouse/gatehouse). With --headless it puts
# Chromium's display-less switches first, before the app starts: Electron picks its display
# platform before any of the app's own code runs, and as root (a container) Chromium stops at
# once without --no-sandbox. Headless mode loads no page, so the sandbox guards nothing there.
# Everything else is passed on unchanged; `exec` keeps one process, so signals reach the app.
set -eu
here=$(dirname "$(readlink -f "$0")")
app="$here/../../gatehouse"
for arg in "$@"; do
  if [ "$arg" = "--headless" ]; then
    exec "$app" --ozone-platform=headless --disable-gpu --no-sandbox "$@"
  fi
done
exec "$app" "$@"
