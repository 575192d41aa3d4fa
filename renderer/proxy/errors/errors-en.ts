import type { ProxyErrorCode } from "../../../server/http/error-codes.js";
import { attempt, type ErrorTable } from "../../shared/error-table.js";
import { formatBytes } from "../../shared/format.js";
import { plural, say } from "../../shared/i18n.js";
import { en } from "../words.js";
import { ruleInWords } from "../rules/rule-words.js";

const seconds = (n: string | number) =>
  plural("en", n, { one: "1 second", other: "{count} seconds" });
const characters = (n: string | number) =>
  plural("en", n, { one: "1 character", other: "{count} characters" });

/**
 * The proxy service's errors in English, by code (see renderer/shared/error-table.ts).
 * `backup.invalid_*` name what was wrong inside; errors-i18n.ts words that part.
 */
export const PROXY_EN: ErrorTable<ProxyErrorCode> = {
  "auth.sign_in": () => "Sign in first.",
  "auth.csrf": () => "This page's session key is out of date; reload the page and try again.",
  "auth.already_set_up": () => "The administrator password has already been set.",
  "auth.setup_token": () => "The setup token is wrong.",
  "auth.not_set_up": () => "The console has not been set up yet.",
  "auth.password_wrong": () => "The password is wrong.",
  "auth.current_password_wrong": () => "The current password is wrong.",
  "auth.login_limit": () => "Too many failed sign-in attempts; try again later.",
  "auth.password_short": (p) =>
    `The password is too short: at least ${characters(p.min)} (accented and non-Latin letters count as 2 to 4).`,
  "auth.password_long": (p) =>
    `The password is too long: at most ${characters(p.max)} (accented and non-Latin letters count as 2 to 4).`,
  "subscription.unknown": () => "This subscription no longer exists.",
  "subscription.duplicate": (p) => `The subscription ${p.name} already uses this address.`,
  "subscription.limit": (p) =>
    plural("en", p.max, {
      one: "At most 1 subscription can be kept.",
      other: "At most {count} subscriptions can be kept.",
    }),
  "subscription.url_invalid": () => "The subscription address is not valid.",
  "subscription.url_scheme": () => "The subscription address must start with http:// or https://.",
  "subscription.redirect_invalid": () =>
    "The subscription server sent the download to an invalid address.",
  "subscription.redirect_scheme": () =>
    "The subscription server sent the download to an address that is not http or https.",
  "subscription.redirect_no_location": (p) =>
    `The subscription server answered HTTP ${p.status} without saying where to go.`,
  "subscription.redirects": () => "The subscription server redirected too many times.",
  "subscription.no_answer": () => "The subscription server gave no answer.",
  "subscription.cancelled": () => "The subscription download was cancelled.",
  "subscription.timeout": (p) =>
    `The subscription server did not answer within ${seconds(p.seconds)}.`,
  "subscription.dns": () => "The subscription server's name could not be found.",
  "subscription.refused": () => "The subscription server refused the connection.",
  "subscription.tls": () => "The subscription server's certificate is not trusted.",
  "subscription.closed": () =>
    "The subscription server closed the connection before the download finished.",
  "subscription.unreachable": () => "The subscription server could not be reached.",
  "subscription.fetch_status": (p) => `The subscription server answered HTTP ${p.status}.`,
  "subscription.too_large": (p) =>
    `The subscription is larger than ${formatBytes(Number(p.limit))}.`,
  "subscription.decompress": () => "The subscription could not be unpacked.",
  "subscription.format": () => "The subscription is not in a format Gatehouse can read.",
  "subscription.no_nodes": (p) =>
    Number(p.skipped) > 0
      ? `The subscription has no usable nodes (${p.skipped} could not be used).`
      : "The subscription has no nodes.",
  "subscription.yaml_invalid": (p) => `The subscription's YAML could not be read: ${p.detail}`,
  "subscription.yaml_depth": (p) =>
    p.limit === undefined
      ? "The subscription's YAML is nested too deeply to read."
      : `The subscription's YAML is nested more than ${plural("en", p.limit, { one: "1 level", other: "{count} levels" })} deep.`,
  "subscription.yaml_aliases": (p) =>
    `The subscription uses more than ${plural("en", p.limit, { one: "1 YAML alias", other: "{count} YAML aliases" })}; a feed that large is refused.`,
  "subscription.yaml_expansion": (p) =>
    `The subscription's YAML aliases expand to more than ${plural("en", p.limit, { one: "1 value", other: "{count} values" })}; a feed that large is refused.`,
  "subscription.yaml_alias_unknown": (p) =>
    `The subscription's YAML uses the alias *${p.alias} before its anchor is set.`,
  "subscription.yaml_alias_loop": (p) =>
    `The subscription's YAML anchor ${p.alias} contains an alias to itself.`,
  "subscription.read_timeout": (p) =>
    `Reading the subscription took longer than ${seconds(p.seconds)} and was stopped.`,
  "subscription.read_memory": (p) =>
    `Reading the subscription needs more than ${p.limit} MB of memory; it was not read.`,
  "subscription.reader_failed": () => "The subscription could not be read; try again.",
  "subscription.refresh_failed": () => "The subscription could not be refreshed.",
  "subscription.both_failed": (p) =>
    `Direct download: ${attempt(PROXY_EN, p, "direct_")} Through the proxy core: ${attempt(PROXY_EN, p, "proxied_")}`,
  "rule.unknown": () => "This rule no longer exists.",
  "device.unknown": () => "This device is not known (any more): it may have been removed.",
  "rule.order": () => "The new order must list every rule exactly once; reload and try again.",
  "rule.duplicate": (p) =>
    `Rule ${p.position} in the list is already ${ruleInWords(p, (k, v) => say("en", en[k], v))}; change that one instead.`,
  "node.unknown": (p) => `The node ${p.node} is not known.`,
  "node.unavailable": () => "That node is gone, or its subscription is switched off.",
  "node.select_refused": (p) => `The selection was saved, but the core refused it: ${p.detail}`,
  "node.test_needs_core": () =>
    "Start the proxy core first: latency tests go through it, and it is not running.",
  "settings.mixed_port_dns": () => "The proxy port must differ from the DNS port.",
  "settings.mixed_port_controller": (p) =>
    `The proxy port cannot be ${p.port}: the core's controller uses it.`,
  "settings.mixed_port_own": (p) => `The proxy port cannot be ${p.port}: this console uses it.`,
  "settings.mixed_port_parcel": (p) =>
    `The proxy port cannot be ${p.port}: Gatehouse's file transfer uses it.`,
  "settings.port_in_use": (p) =>
    `Port ${p.port} is used by another program; choose another port, or stop that program.`,
  "settings.lan_ip_format": () => "The LAN address must be an IPv4 address.",
  "settings.gateway_format": () => "The gateway must be an IP address.",
  "settings.lan_cidr_format": () => "The LAN network must be written like 192.168.1.0/24.",
  "settings.lan_cidr_everything": () => "The LAN network must be the LAN, not every address.",
  "settings.lan_ip_loopback": () => "The LAN address must be an address other than 127.0.0.1.",
  "settings.lan_ip_needs_cidr": () =>
    "A LAN address needs the LAN network too (the network of the LAN devices).",
  "settings.lan_ip_outside": () => "The LAN address must lie inside the LAN network.",
  "settings.tun_dns_port": () => "With TUN mode on, the DNS port must be 53.",
  "settings.tun_needs": () =>
    "TUN mode needs the LAN address, the LAN network, the gateway and the network interface.",
  "settings.interface_missing": (p) =>
    `The network interface ${p.interface} does not exist on this machine.`,
  "settings.interface_address": (p) =>
    `${p.address} is not an address of the network interface ${p.interface}.`,
  "backup.not_backup": () => "This file is not a Gatehouse backup.",
  "backup.version": () => "Unsupported backup version: only backups of version 1 can be restored.",
  "backup.invalid_settings": (p) => `The backup's settings are not valid: ${p.reason}`,
  "backup.invalid_rule": (p) => `Rule ${p.rule} of the backup is not valid: ${p.reason}`,
  "backup.duplicate_id": (p) => `The backup lists the ${p.kind} ${p.id} twice.`,
  "core.not_installed": () =>
    "The proxy core is not installed yet: install it with “Install the proxy core” on the Dashboard.",
  "core.port_in_use": (p) =>
    `Port ${p.port} is used by another program, so the proxy core cannot be controlled there. Stop that program, or start Gatehouse with --core-controller-port set to a free port.`,
  "core.unreachable": () =>
    "The proxy core is not running or cannot be reached. Start it on the Dashboard, or install it there first if it is not installed yet.",
  "core.timeout": () => "The proxy core did not answer in time.",
  "core.error": () => "The proxy core answered with an error.",
  "core.config": () => "The proxy core's configuration has a problem.",
  "core.config_rejected": (p) => `The core rejected the configuration: ${p.detail}`,
  "core.config_load": (p) => `The core did not load the configuration: ${p.detail}`,
  "core.apply_failed": (p) => `The change could not be applied to the core: ${p.detail}`,
  "core.start_failed": (p) => `The proxy core could not be started: ${p.detail}`,
  "core.exited_at_start": () => "The proxy core stopped right after starting.",
  "core.restart_failed": (p) => `The proxy core could not be restarted: ${p.detail}`,
  "core.stop_failed": (p) => `The proxy core could not be stopped: ${p.detail}`,
  "core.logs_ended": () => "The proxy core ended its log stream.",
  "stream.limit": (p) =>
    `This sign-in already has ${p.max} live views open; close another window or tab of the console and try again.`,
  "install.busy": () =>
    "The proxy core is already being installed or rolled back; wait for it to finish.",
  "install.configured": () =>
    "This Gatehouse runs the core named with --core-bin, so installing another would change nothing. Start Gatehouse without --core-bin to let it install and update the core.",
  "install.unreachable": () =>
    "The core could not be installed: the release server could not be reached. Nothing was changed.",
  "install.timeout": (p) =>
    `The core could not be installed: the download did not finish within ${seconds(p.seconds)}. Nothing was changed.`,
  "install.http_status": (p) =>
    `The core could not be installed: the release server answered HTTP ${p.status}. Nothing was changed.`,
  "install.bad_release": () =>
    "The core could not be installed: the release server's answer could not be read. Nothing was changed.",
  "install.no_asset": (p) =>
    `The latest release has no core for this machine (${p.asset}). Nothing was changed.`,
  "install.no_digest": (p) =>
    `The release gives no SHA-256 checksum for ${p.asset}, so it cannot be checked and was not installed.`,
  "install.digest_mismatch": (p) =>
    `The downloaded ${p.asset} does not match its published checksum; it was not installed.`,
  "install.too_large": (p) =>
    `The core's download is larger than ${formatBytes(Number(p.limit))}; it was not installed.`,
  "install.unreadable": () => "The core's download could not be unpacked; it was not installed.",
  "install.version_mismatch": (p) =>
    `The downloaded core does not run here or does not say it is ${p.version}; it was not installed.`,
  "install.config_rejected": (p) =>
    `The new core rejected the current configuration, so it was not installed: ${p.detail}`,
  "install.restart_failed": (p) =>
    `The new core did not start, so the previous one was put back and started again: ${p.detail}`,
  "install.no_previous": () => "There is no previous core to go back to.",
  "geodata.missing": (p) =>
    `The core's rule data file ${p.file} is missing, so the core was not started (it would try to download it). Use "Update geodata" on the System screen.`,
  "geodata.busy": () => "Geodata is already being updated; wait for it to finish.",
  "geodata.unreachable": (p) =>
    `The geodata update failed: the download server could not be reached for ${p.file}. Nothing was changed.`,
  "geodata.http_status": (p) =>
    `The geodata update failed: the download server answered HTTP ${p.status} for ${p.file}. Nothing was changed.`,
  "geodata.checksum": (p) =>
    `The downloaded ${p.file} does not match its published checksum, so it was not used. Nothing was changed.`,
  "geodata.too_large": (p) => `The download of ${p.file} is too large, so it was not used.`,
  "geodata.rejected": (p) =>
    `The proxy core refused the new geodata, so the files in use were kept: ${p.detail}`,
  "probation.none": () => "No settings change is waiting for confirmation.",
  "probation.rolled_back": () =>
    "The settings change was not confirmed within 60 seconds, so the previous settings were restored and the core restarted.",
  "probation.rolled_back_restart": () =>
    "The service restarted before the settings change was confirmed, so the previous settings were restored.",
  "updates.unreachable": () => "The update check failed: the release server could not be reached.",
  "updates.timeout": () => "The update check failed: the release server did not answer in time.",
  "updates.http_status": (p) =>
    `The update check failed: the release server answered HTTP ${p.status}.`,
  "updates.bad_answer": () =>
    "The update check failed: the release server's answer could not be read.",
  "updates.too_large": (p) =>
    `The update check failed: the release server's answer is larger than ${p.mib} MiB, so it is not a release.`,
  "connectivity.unknown_site": (p) => `There is no test site called ${p.site}.`,
  "connectivity.busy": () => "Three connectivity tests are already running; try again shortly.",
};
