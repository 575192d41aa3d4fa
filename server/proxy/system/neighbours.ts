import { readFile } from "node:fs/promises";
import { runBounded } from "../core/child-group.js";
import { canonicalIp, canonicalMac } from "./addresses.js";

/** Linux's IPv4 neighbour (ARP) table. */
export const LINUX_NEIGHBOURS = "/proc/net/arp";
/** ATF_COM: the kernel has the entry's hardware address (an incomplete entry has none). */
const COMPLETE = 0x2;
/** The longest table read (a LAN of thousands of hosts is ~100 bytes a line). */
const MAX_BYTES = 4 * 1024 * 1024;

/**
 * The neighbour table's IPv4 address → MAC address pairs, from the text of `/proc/net/arp`:
 * `IP address  HW type  Flags  HW address  Mask  Device`, one entry a line after a header.
 * Incomplete entries and all-zero addresses are left out.
 */
export function parseNeighbours(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split("\n").slice(1)) {
    const [ip, , flags, hw] = line.trim().split(/\s+/);
    if (!ip || !hw) continue;
    if ((Number.parseInt(flags ?? "0", 16) & COMPLETE) === 0) continue;
    const mac = canonicalMac(hw);
    const addr = canonicalIp(ip);
    if (mac && addr && mac !== "00:00:00:00:00:00") out.set(addr, mac);
  }
  return out;
}

/** An IPv4 address, and a MAC address written with `:` or `-` and one or two digits a byte. */
const ARP_IP = /(?:^|[\s(])(\d{1,3}(?:\.\d{1,3}){3})(?:[\s)]|$)/;
const ARP_MAC = /(?:^|\s)((?:[0-9a-f]{1,2}[:-]){5}[0-9a-f]{1,2})(?:\s|$)/i;

/**
 * The pairs of the `arp` command's listing where there is no `/proc/net/arp`: macOS and the
 * BSDs (`arp -an`: `? (192.168.1.20) at a4:83:e7:1:2:3 on en0 ifscope [ethernet]`, bytes
 * without their leading zero) and Windows (`arp -a`: `  192.168.1.20   a4-83-e7-11-22-33
 * dynamic`). Incomplete entries, broadcast and all-zero addresses are left out.
 */
export function parseArpListing(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split("\n")) {
    const ip = ARP_IP.exec(line)?.[1];
    const hw = ARP_MAC.exec(line)?.[1];
    if (!ip || !hw) continue;
    const mac = canonicalMac(
      hw
        .split(/[:-]/)
        .map((b) => b.padStart(2, "0"))
        .join(":"),
    );
    const addr = canonicalIp(ip);
    if (!mac || !addr || mac === "00:00:00:00:00:00" || mac === "ff:ff:ff:ff:ff:ff") continue;
    out.set(addr, mac);
  }
  return out;
}

/**
 * The neighbour table as the `arp` command lists it (macOS, the BSDs, Windows), or an empty
 * one when the command is missing, fails or hangs (it is given 5 s): devices are then known by
 * their IP address.
 */
export async function readArpCommand(): Promise<Map<string, string>> {
  const args = process.platform === "win32" ? ["-a"] : ["-an"];
  const r = await runBounded("arp", args, { timeoutMs: 5000, maxOutputBytes: MAX_BYTES });
  return r.code === 0 ? parseArpListing(r.stdout) : new Map();
}

/**
 * Reads the neighbour table, or answers an empty one where there is none to read (a sandbox
 * without /proc): devices are then known by their IP address.
 */
export async function readNeighbours(path: string | null): Promise<Map<string, string>> {
  if (!path) return new Map();
  try {
    const text = await readFile(path, "utf8");
    return parseNeighbours(text.length > MAX_BYTES ? text.slice(0, MAX_BYTES) : text);
  } catch {
    return new Map();
  }
}

/**
 * Linux's IPv6 neighbours as `ip -6 neigh show` lists them (`/proc/net/arp` holds IPv4 only):
 * `2001:db8::5 dev br-lan lladdr a4:83:e7:11:22:33 REACHABLE`; entries without a link-layer
 * address (FAILED, INCOMPLETE) are left out.
 */
export function parseIpNeigh(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split("\n")) {
    const words = line.trim().split(/\s+/);
    const at = words.indexOf("lladdr");
    if (at < 1) continue;
    const addr = canonicalIp(words[0]);
    const mac = canonicalMac(words[at + 1] ?? "");
    if (addr && mac && mac !== "00:00:00:00:00:00") out.set(addr, mac);
  }
  return out;
}

/** Set once `ip` turned out to be missing: it is not looked for again. */
let noIpCommand = false;

/** Linux's IPv6 neighbours, or none when `ip` is missing or fails (given 5 s). */
export async function readIpv6Neighbours(): Promise<Map<string, string>> {
  if (noIpCommand) return new Map();
  const r = await runBounded("ip", ["-6", "neigh", "show"], {
    timeoutMs: 5000,
    maxOutputBytes: MAX_BYTES,
  });
  if (r.error) noIpCommand = true;
  return r.code === 0 ? parseIpNeigh(r.stdout) : new Map();
}

/** Linux's whole neighbour table: IPv4 from `/proc/net/arp`, IPv6 from `ip -6 neigh`. */
export async function readLinuxNeighbours(): Promise<Map<string, string>> {
  const [v4, v6] = await Promise.all([readNeighbours(LINUX_NEIGHBOURS), readIpv6Neighbours()]);
  for (const [ip, mac] of v6) v4.set(ip, mac);
  return v4;
}

/** Where the neighbour table comes from: a file (tests; null: none), Linux's, or `arp`. */
export type NeighbourSource = { file: string | null } | { system: "linux" | "arp" };

/** The neighbour table of `source` (the core reader's worker calls it: see core-reader.ts). */
export function readNeighbourTable(source: NeighbourSource): Promise<Map<string, string>> {
  if ("file" in source) return readNeighbours(source.file);
  return source.system === "linux" ? readLinuxNeighbours() : readArpCommand();
}
