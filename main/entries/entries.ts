import { isIPv4, isIPv6 } from "node:net";
import type { DetectedInterface } from "./detect.js";

/**
 * From the interfaces detected now and the operator's choice to the parcel desk's entry
 * addresses: what the services accept requests on, what the window opens and what the share
 * QR codes say.
 */

/** Every detected interface, or the chosen ones: interface names and/or IPv4 addresses. */
export type EntryChoice = "all" | string[];

export interface EntryPorts {
  /** HTTP port of the parcel desk. */
  parcel: number;
  /** Its HTTPS port, used only when HTTPS is on. */
  https: number;
}

export interface EntryConfig {
  chosen: EntryChoice;
  ports: EntryPorts;
  https: boolean;
  /** The services' listen address (0.0.0.0 = every interface). */
  host: string;
}

/** One LAN address as the window and the tray show it. */
export interface LanEntry {
  address: string;
  /** Interface it was detected on. */
  name: string;
  http: string;
  https: string | null;
}

export interface EntryState {
  /**
   * Every entry origin, for the services. The first is the one the window opens: loopback
   * when the services listen on it, else the single address they listen on.
   */
  urls: string[];
  /** LAN entries, for QR codes (never loopback). */
  lan: LanEntry[];
  /** Chosen interfaces or addresses this computer does not have now (cable out, Wi-Fi off). */
  missing: string[];
}

/** The protocol's limit on the entries one service holds. */
export const MAX_ENTRY_URLS = 64;

const WILDCARDS = new Set(["0.0.0.0", "::"]);
const LOOPBACK_V4 = new Set(["127.0.0.1", "localhost"]);

function origin(protocol: "http" | "https", host: string, port: number): string {
  return `${protocol}://${isIPv6(host) ? `[${host}]` : host}:${port}`;
}

/**
 * Which detected addresses the choice selects, and which chosen names or addresses this
 * computer does not have now. A chosen interface name brings whatever IPv4 addresses it has
 * (so a new DHCP lease follows); a chosen address only itself.
 */
export function chooseInterfaces(
  chosen: EntryChoice,
  detected: DetectedInterface[],
): { active: DetectedInterface[]; missing: string[] } {
  if (chosen === "all") return { active: detected.filter((d) => !d.virtual), missing: [] };
  const active: DetectedInterface[] = [];
  const missing: string[] = [];
  for (const item of chosen) {
    const found = detected.filter((d) => (isIPv4(item) ? d.address === item : d.name === item));
    if (found.length === 0) missing.push(item);
    for (const d of found) if (!active.includes(d)) active.push(d);
  }
  return { active, missing };
}

/** The entries for a configuration and the interfaces detected now. */
export function entryState(config: EntryConfig, detected: DetectedInterface[]): EntryState {
  const { host, ports } = config;
  const local: string[] = [];
  let lanHosts: DetectedInterface[] = [];
  let missing: string[] = [];
  if (WILDCARDS.has(host)) {
    local.push("127.0.0.1", "localhost");
    ({ active: lanHosts, missing } = chooseInterfaces(config.chosen, detected));
  } else if (LOOPBACK_V4.has(host)) {
    local.push("127.0.0.1", "localhost");
  } else if (host === "::1") {
    local.push("::1");
  } else {
    // Bound to one address: that is the only way in, for the window too.
    const found = detected.find((d) => d.address === host);
    lanHosts = [found ?? { name: "", address: host, virtual: false }];
  }
  const perHost = config.https ? 2 : 1;
  const room = Math.max(0, Math.floor(MAX_ENTRY_URLS / perHost) - local.length);
  lanHosts = lanHosts.slice(0, room);
  const hosts = [...local, ...lanHosts.map((d) => d.address)];
  const urls = hosts.map((h) => origin("http", h, ports.parcel));
  if (config.https) urls.push(...hosts.map((h) => origin("https", h, ports.https)));
  const lan = lanHosts.map((d) => ({
    address: d.address,
    name: d.name,
    http: origin("http", d.address, ports.parcel),
    https: config.https ? origin("https", d.address, ports.https) : null,
  }));
  return { urls, lan, missing };
}

/** The entry origins (HTTP, then HTTPS when on); the window's own first. */
export function entriesFor(
  chosen: EntryChoice,
  detected: DetectedInterface[],
  ports: EntryPorts,
  https: boolean,
  host = "0.0.0.0",
): string[] {
  return entryState({ chosen, ports, https, host }, detected).urls;
}

/** Two states say the same thing (nothing for the window, services or tray to redo). */
export function sameEntryState(a: EntryState, b: EntryState): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
