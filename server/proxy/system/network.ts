import { existsSync, readFileSync, readdirSync } from "node:fs";
import { networkInterfaces, type NetworkInterfaceInfo } from "node:os";
import { join } from "node:path";
import type { ProxyContext } from "../context.js";
import { runBounded } from "../core/child-group.js";
import type { NetworkReport as NetworkReportView } from "../../contract/proxy-system.js";

/** One interface as the report lists it. */
export type InterfaceView = NetworkReportView["interfaces"][number];

/** The report as this module makes it; the route adds the ports this Gatehouse listens on. */
export type NetworkReport = Omit<NetworkReportView, "gatehousePorts">;

/** Paths the report reads; injectable so tests can point them at temp files. */
export interface NetworkProbePaths {
  ipForward: string;
  tunDevice: string;
  sysClassNet: string;
}

export const DEFAULT_PROBE_PATHS: NetworkProbePaths = {
  ipForward: "/proc/sys/net/ipv4/ip_forward",
  tunDevice: "/dev/net/tun",
  sysClassNet: "/sys/class/net",
};

export function machineInterfaces(ctx: ProxyContext): () => NodeJS.Dict<NetworkInterfaceInfo[]> {
  return ctx.options.networkInterfaces ?? networkInterfaces;
}

function operstate(paths: NetworkProbePaths, name: string): string | null {
  try {
    return readFileSync(join(paths.sysClassNet, name, "operstate"), "utf8").trim();
  } catch {
    return null;
  }
}

export function listInterfaces(
  ctx: ProxyContext,
  paths: NetworkProbePaths = DEFAULT_PROBE_PATHS,
): InterfaceView[] {
  const injected = ctx.options.networkInterfaces !== undefined;
  const found = machineInterfaces(ctx)();
  const out = new Map<string, InterfaceView>();
  for (const [name, infos] of Object.entries(found)) {
    const list = infos ?? [];
    if (name === "lo" || (list.length > 0 && list.every((i) => i.internal))) continue;
    const addresses = list
      .filter((i) => i.family === "IPv4" && !i.internal)
      .map((i) => i.cidr ?? `${i.address}/32`);
    out.set(name, { name, addresses, up: true });
  }
  if (!injected) {
    // Interfaces without addresses are missing from os.networkInterfaces(); sysfs has them.
    let names: string[] = [];
    try {
      names = readdirSync(paths.sysClassNet);
    } catch {
      names = [];
    }
    for (const name of names) {
      if (name === "lo") continue;
      const state = operstate(paths, name);
      const known = out.get(name);
      if (known) {
        if (state === "down" || state === "lowerlayerdown") known.up = false;
      } else {
        out.set(name, { name, addresses: [], up: state === "up" });
      }
    }
  }
  return [...out.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function readFlag(path: string): boolean {
  try {
    return readFileSync(path, "utf8").trim() === "1";
  } catch {
    return false;
  }
}

/** Whether systemctl answers, asked once per service run (it does not come and go). */
let systemctlAnswers: Promise<boolean> | null = null;

/**
 * Asked off the event loop with a deadline (a blocking call here held every request of both
 * services for as long as systemctl took).
 */
function hasSystemctl(): Promise<boolean> {
  systemctlAnswers ??= runBounded("systemctl", ["--version"], { timeoutMs: 5000 }).then(
    (r) => r.code === 0,
  );
  return systemctlAnswers;
}

/** Geodata for the mainland rule sets, which an offline gateway cannot download. */
export function rulesInstalled(homeDir: string): boolean {
  const has = (f: string) => existsSync(join(homeDir, f));
  return (has("GeoSite.dat") || has("geosite.dat")) && (has("GeoIP.dat") || has("geoip.metadb"));
}

export async function networkReport(
  ctx: ProxyContext,
  paths: NetworkProbePaths = DEFAULT_PROBE_PATHS,
): Promise<NetworkReport> {
  const ipForward = readFlag(paths.ipForward);
  const tunDevice = existsSync(paths.tunDevice);
  const rules = rulesInstalled(join(ctx.dir, "core"));
  const serviceControl =
    (ctx.options.coreService ?? "process") === "systemd"
      ? await hasSystemctl()
      : ctx.core.installed;
  const advice: string[] = [];
  const codes: string[] = [];
  const step = (code: string, text: string) => (codes.push(code), advice.push(text));
  if (!ipForward) step("ip_forward", "enable IPv4 forwarding (sysctl net.ipv4.ip_forward=1)");
  if (!tunDevice) step("tun_device", "load the tun module so /dev/net/tun exists");
  if (!rules)
    step("geodata", "download the rule data (geodata) with Update geodata on the System screen");
  if (!serviceControl)
    step("core_missing", "install the proxy core so this service can control it");
  const lead = advice.length > 0 ? `To use this machine as a gateway, ${advice.join("; ")}. ` : "";
  const guidance = `${lead}This service does not manage DHCP: set this machine's LAN address as the gateway and DNS server on your router or on each device.`;
  return {
    interfaces: listInterfaces(ctx, paths),
    ipForward,
    tunDevice,
    rulesInstalled: rules,
    serviceControl,
    dhcpManaged: false,
    guidance,
    guidanceCodes: [...codes, "no_dhcp"],
  };
}
