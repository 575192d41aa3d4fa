import { readFile } from "node:fs/promises";
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

/**
 * Reads the neighbour table, or answers an empty one where there is none to read (another
 * system than Linux, or a sandbox without /proc): devices are then known by their IP address.
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
