import { open } from "node:fs/promises";
import { canonicalIp, canonicalMac } from "./addresses.js";

/** One DHCP lease: an address, the MAC it was given to (when the file says), a host name. */
export interface Lease {
  ip: string;
  mac: string | null;
  name: string | null;
}

/** The leases of a file, by address and by MAC address. */
export interface LeaseTable {
  byIp: Map<string, Lease>;
  byMac: Map<string, Lease>;
}

/** The longest leases file read (thousands of leases are well under it). */
const MAX_BYTES = 4 * 1024 * 1024;

export const emptyLeases = (): LeaseTable => ({ byIp: new Map(), byMac: new Map() });

/** A host name as a device name: printable, at most 64 characters; "*" and "-" mean none. */
function hostName(raw: string | undefined): string | null {
  if (!raw || raw === "*" || raw === "-" || raw.startsWith("broken\\x20")) return null;
  const name = raw.trim();
  return /^[\x21-\x7e]{1,64}$/.test(name) ? name : null;
}

/** Whether a lease whose expiry is `expiry` (Unix seconds; 0 or -1: never) still holds. */
function current(expiry: string | undefined, nowS: number): boolean {
  const n = Number(expiry);
  if (!Number.isFinite(n)) return false;
  return n === 0 || n === -1 || n >= nowS;
}

function add(table: LeaseTable, lease: Lease): void {
  table.byIp.set(lease.ip, lease);
  if (lease.mac) table.byMac.set(lease.mac, lease);
}

/**
 * dnsmasq's leases file: `<expiry> <mac> <ip> <hostname> <client-id>` per IPv4 lease, and after
 * a `duid <server-duid>` line `<expiry> <iaid> <ipv6> <hostname> <client-duid>` per IPv6 one
 * (no MAC there). An expiry of 0 never ends.
 */
function dnsmasqLine(fields: string[], nowS: number, table: LeaseTable): void {
  if (fields.length < 4 || !current(fields[0], nowS)) return;
  const ip = canonicalIp(fields[2]);
  if (!ip) return;
  const mac = ip.includes(":") ? null : canonicalMac(fields[1]);
  add(table, { ip, mac, name: hostName(fields[3]) });
}

/**
 * odhcpd's state file (OpenWrt's DHCPv6 server, and its DHCPv4 one where it replaces dnsmasq):
 * one comment line per lease, `# <iface> <duid-or-mac> <iaid|ipv4> <hostname|-> <valid-until>
 * <assigned> <length> <addr/len>...`, among hosts-file lines it writes for the resolver. The
 * second field is the MAC address (12 hexadecimal digits) on `ipv4` lines, a DUID otherwise.
 * A valid-until of 0 has expired; -1 never does.
 */
function odhcpdLine(fields: string[], nowS: number, table: LeaseTable): void {
  if (fields.length < 9 || !current(fields[5], nowS) || fields[5] === "0") return;
  const v4 = fields[3] === "ipv4";
  const mac = v4 ? canonicalMac(fields[2]) : null;
  const name = hostName(fields[4]);
  for (const addr of fields.slice(8)) {
    const ip = canonicalIp(addr.split("/")[0]);
    if (ip) add(table, { ip, mac, name });
  }
}

/** The leases of a dnsmasq leases file or an odhcpd state file (told apart line by line). */
export function parseLeases(text: string, nowMs: number): LeaseTable {
  const table = emptyLeases();
  const nowS = Math.floor(nowMs / 1000);
  for (const line of text.split("\n")) {
    const fields = line.trim().split(/\s+/);
    if (fields[0] === "#") odhcpdLine(fields, nowS, table);
    else if (fields[0] !== "duid" && /^-?\d+$/.test(fields[0] ?? "")) {
      dnsmasqLine(fields, nowS, table);
    }
  }
  return table;
}

/**
 * The leases file as it is now, read again when its size or modification time changed (a DHCP
 * server rewrites it whole) or a minute passed. A missing or unreadable file has no leases.
 */
export class LeasesFile {
  private stamp = "";
  private table = emptyLeases();

  constructor(private readonly path: string | null) {}

  async read(nowMs: number): Promise<LeaseTable> {
    if (!this.path) return this.table;
    let handle;
    try {
      handle = await open(this.path, "r");
      const st = await handle.stat();
      // Read again each minute too: a lease that ran out since must stop counting.
      const stamp = `${st.size}:${st.mtimeMs}:${Math.floor(nowMs / 60_000)}`;
      if (stamp !== this.stamp) {
        const size = Math.min(st.size, MAX_BYTES);
        const buf = Buffer.alloc(size);
        const { bytesRead } = await handle.read(buf, 0, size, 0);
        this.table = parseLeases(buf.subarray(0, bytesRead).toString("utf8"), nowMs);
        this.stamp = stamp;
      }
    } catch {
      this.table = emptyLeases();
      this.stamp = "";
    } finally {
      await handle?.close().catch(() => undefined);
    }
    return this.table;
  }
}
