#!/bin/bash
# The deb package's after-install script (electron-builder's `deb.afterInstall`; it replaces
# the packager's own, so the first part does that one's work: the command on PATH, Chromium's
# sandbox helper, the desktop databases and the AppArmor profile). electron-builder fills in
# the two names in braces; no other braces may appear in this file.
# Then the headless units: copied to /lib/systemd/system and made known to systemd, never
# enabled or started (README: "Running on a gateway without a display").
set -e
app='/opt/${sanitizedProductName}'
exe='${executable}'

# The command on PATH is the launcher beside the units (resources/linux/gatehouse-launcher.sh):
# it starts "$app/$exe", with the display-less switches first for `gatehouse --headless`.
launcher="$app/resources/linux/gatehouse-launcher.sh"
chmod 0755 "$launcher"
if type update-alternatives >/dev/null 2>&1; then
  # A plain link left by an older package gives way to the alternatives system.
  if [ -L "/usr/bin/$exe" ] && [ "$(readlink "/usr/bin/$exe")" != "/etc/alternatives/$exe" ]; then
    rm -f "/usr/bin/$exe"
  fi
  # Older packages pointed the command at the binary itself.
  update-alternatives --remove "$exe" "$app/$exe" >/dev/null 2>&1 || true
  update-alternatives --install "/usr/bin/$exe" "$exe" "$launcher" 100 || ln -sf "$launcher" "/usr/bin/$exe"
else
  ln -sf "$launcher" "/usr/bin/$exe"
fi

# Chromium's setuid sandbox helper is needed only where user namespaces do not work.
if [[ -L /proc/self/ns/user ]] && unshare --user true 2>/dev/null; then
  chmod 0755 "$app/chrome-sandbox" || true
else
  chmod 4755 "$app/chrome-sandbox" || true
fi

if hash update-mime-database 2>/dev/null; then update-mime-database /usr/share/mime || true; fi
if hash update-desktop-database 2>/dev/null; then update-desktop-database /usr/share/applications || true; fi

# Ubuntu 24.04 and later allow user namespaces only to profiled programs.
if apparmor_status --enabled >/dev/null 2>&1; then
  profile="$app/resources/apparmor-profile"
  if apparmor_parser --skip-kernel-load --debug "$profile" >/dev/null 2>&1; then
    cp -f "$profile" "/etc/apparmor.d/$exe"
    if ! { [ -x /usr/bin/ischroot ] && /usr/bin/ischroot; } && hash apparmor_parser 2>/dev/null; then
      apparmor_parser --replace --write-cache --skip-read-cache "/etc/apparmor.d/$exe" || true
    fi
  fi
fi

# The headless services' own system user (no login, no home of its own outside its state dir).
if ! getent passwd gatehouse >/dev/null; then
  useradd --system --user-group --home-dir /var/lib/gatehouse --no-create-home \
    --shell /usr/sbin/nologin --comment "Gatehouse services" gatehouse || true
fi

units="$app/resources/linux"
if [ -d /lib/systemd/system ]; then
  install -m 0644 "$units/gatehouse.service" "$units/gatehouse-mihomo.service" /lib/systemd/system/
  if [ -d /usr/share/polkit-1/rules.d ]; then
    install -m 0644 "$units/gatehouse-mihomo.rules" /usr/share/polkit-1/rules.d/50-gatehouse-mihomo.rules
  fi
  # Known to systemd, never enabled: a desktop install must not start a second copy of the services.
  if [ -d /run/systemd/system ]; then systemctl daemon-reload || true; fi
fi
