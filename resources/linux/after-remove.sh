#!/bin/bash
# The deb package's after-remove script (electron-builder's `deb.afterRemove`, which replaces
# the packager's own: the first part does that one's work). electron-builder fills in the two
# names in braces; no other braces may appear in this file. An upgrade keeps the units.
app='/opt/${sanitizedProductName}'
exe='${executable}'

if type update-alternatives >/dev/null 2>&1; then
  update-alternatives --remove "$exe" "$app/resources/linux/gatehouse-launcher.sh" || true
  update-alternatives --remove "$exe" "$app/$exe" >/dev/null 2>&1 || true
else
  rm -f "/usr/bin/$exe"
fi

if [ -f "/etc/apparmor.d/$exe" ]; then
  if apparmor_status --enabled >/dev/null 2>&1 && hash apparmor_parser 2>/dev/null; then
    if ! { [ -x /usr/bin/ischroot ] && /usr/bin/ischroot; }; then
      apparmor_parser --remove "/etc/apparmor.d/$exe" || true
    fi
  fi
  rm -f "/etc/apparmor.d/$exe"
fi

case "$1" in
  remove | purge | 0)
    if [ -d /run/systemd/system ]; then
      systemctl disable --now gatehouse.service gatehouse-mihomo.service >/dev/null 2>&1 || true
    fi
    rm -f /lib/systemd/system/gatehouse.service /lib/systemd/system/gatehouse-mihomo.service
    rm -f /usr/share/polkit-1/rules.d/50-gatehouse-mihomo.rules
    if [ -d /run/systemd/system ]; then systemctl daemon-reload || true; fi
    ;;
esac
