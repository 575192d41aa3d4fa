import type { ErrorRegistry } from "../http/error-registry.js";

/**
 * The proxy service's error codes and the values each sentence mentions (see
 * server/http/error-codes.ts). The console translates every one of them. Besides answers,
 * these codes name a subscription's last refresh failure (`lastErrorCode`), the core's state
 * on /status (`coreErrorCode`, `configErrorCode`) and the end of a log stream.
 */
export const PROXY_ERRORS = {
  // Sign-in and the session.
  "auth.sign_in": [],
  "auth.csrf": [],
  "auth.already_set_up": [],
  "auth.setup_token": [],
  "auth.not_set_up": [],
  "auth.password_wrong": [],
  "auth.current_password_wrong": [],
  "auth.login_limit": [],
  "auth.password_short": ["min"],
  "auth.password_long": ["max"],
  // Subscriptions and their refresh (`lastErrorCode` of a list item).
  "subscription.unknown": [],
  "subscription.duplicate": ["name"],
  "subscription.limit": ["max"],
  "subscription.url_invalid": [],
  "subscription.url_scheme": [],
  "subscription.redirect_invalid": [],
  "subscription.redirect_scheme": [],
  "subscription.redirect_no_location": ["status"],
  "subscription.redirects": [],
  "subscription.no_answer": [],
  "subscription.cancelled": [],
  "subscription.timeout": ["seconds"],
  "subscription.dns": [],
  "subscription.refused": [],
  "subscription.tls": [],
  "subscription.closed": [],
  "subscription.unreachable": [],
  "subscription.fetch_status": ["status"],
  "subscription.too_large": ["limit"],
  "subscription.decompress": [],
  "subscription.format": [],
  "subscription.no_nodes": ["skipped"],
  "subscription.yaml_invalid": ["detail"],
  "subscription.yaml_depth": ["limit?"],
  "subscription.yaml_aliases": ["limit"],
  "subscription.yaml_expansion": ["limit"],
  "subscription.yaml_alias_unknown": ["alias"],
  "subscription.yaml_alias_loop": ["alias"],
  "subscription.read_timeout": ["seconds"],
  "subscription.read_memory": ["limit"],
  "subscription.reader_failed": [],
  "subscription.refresh_failed": [],
  /**
   * The direct download and the second try through the running core both failed: each
   * attempt's own code, and its values prefixed the same way (`direct_seconds`, ...).
   */
  "subscription.both_failed": [
    "direct_code",
    "proxied_code",
    "direct_seconds?",
    "direct_status?",
    "direct_limit?",
    "proxied_seconds?",
    "proxied_status?",
    "proxied_limit?",
  ],
  // Rules and nodes.
  "rule.unknown": [],
  "rule.order": [],
  "rule.duplicate": ["type", "value", "position", "action"],
  "node.unknown": ["node"],
  "node.unavailable": [],
  "node.select_refused": ["detail"],
  /** A latency test asked while no core runs: tests go through the core. */
  "node.test_needs_core": [],
  // LAN devices: an id that names no device (a path's, a traffic query's).
  "device.unknown": [],
  // Settings that contradict each other or the machine.
  "settings.mixed_port_dns": [],
  "settings.mixed_port_controller": ["port"],
  "settings.mixed_port_own": ["port"],
  "settings.mixed_port_parcel": ["port"],
  "settings.port_in_use": ["port", "field?", "address?"],
  "settings.lan_ip_format": [],
  "settings.gateway_format": [],
  "settings.lan_cidr_format": [],
  "settings.lan_cidr_everything": [],
  "settings.lan_ip_loopback": [],
  "settings.lan_ip_needs_cidr": [],
  "settings.lan_ip_outside": [],
  "settings.tun_dns_port": [],
  "settings.tun_needs": [],
  "settings.interface_missing": ["interface"],
  "settings.interface_address": ["address", "interface"],
  // Backup and restore (`reason_code` names what was wrong inside; its params come along).
  "backup.not_backup": [],
  "backup.version": [],
  "backup.invalid_settings": ["reason", "reason_code"],
  "backup.invalid_rule": ["rule", "reason", "reason_code"],
  "backup.duplicate_id": ["kind", "id"],
  // The proxy core (`detail` is the core's or the system's own words, shown as they are). A
  // start that ends in `core.timeout` also carries the core's last lines as `output`.
  "core.not_installed": [],
  // Also each of `/status`'s listenProblems: a port of the running core that another program
  // holds (`address` as the core names it, `listener` mixed or dns).
  "core.port_in_use": ["port", "address?", "listener?"],
  "core.unreachable": [],
  "core.timeout": [],
  "core.error": [],
  "core.config": [],
  "core.config_rejected": ["detail"],
  "core.config_load": ["detail"],
  "core.apply_failed": ["detail"],
  "core.start_failed": ["detail"],
  /** The core exited while starting; its last lines come as `output` beside the code. */
  "core.exited_at_start": [],
  "core.restart_failed": ["detail"],
  "core.stop_failed": ["detail"],
  "core.logs_ended": [],
  "stream.limit": ["max"],
  // Installing the core from its release, and going back to the one it replaced.
  "install.busy": [],
  "install.configured": [],
  "install.unreachable": [],
  "install.timeout": ["seconds"],
  "install.http_status": ["status"],
  "install.bad_release": [],
  "install.no_asset": ["asset"],
  "install.no_digest": ["asset"],
  "install.digest_mismatch": ["asset"],
  "install.too_large": ["limit"],
  "install.unreadable": [],
  /** `-v` of the download does not name the release's version; its words come as `output`. */
  "install.version_mismatch": ["version"],
  "install.config_rejected": ["detail"],
  /** The new core did not start; the previous one is back. The core's lines come as `output`. */
  "install.restart_failed": ["detail"],
  "install.no_previous": [],
  // The core's geodata (`file`: geoip.metadb or geosite.dat; `detail`: the core's words).
  "geodata.missing": ["file"],
  "geodata.busy": [],
  "geodata.unreachable": ["file"],
  "geodata.http_status": ["file", "status"],
  "geodata.checksum": ["file"],
  "geodata.too_large": ["file"],
  "geodata.rejected": ["detail"],
  // Confirm or revert of a settings change that can cut the operator off (`probation.rolled_back*`
  // are configErrorCode values on /status after an unconfirmed change was undone).
  "probation.none": [],
  "probation.rolled_back": [],
  "probation.rolled_back_restart": [],
  // System screens.
  "updates.unreachable": [],
  "updates.timeout": [],
  "updates.http_status": ["status"],
  "updates.bad_answer": [],
  "updates.too_large": ["mib"],
  "connectivity.unknown_site": ["site"],
  "connectivity.busy": [],
} as const satisfies ErrorRegistry;
