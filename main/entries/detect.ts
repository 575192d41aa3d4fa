import { networkInterfaces, type NetworkInterfaceInfo } from "node:os";

/**
 * The machine's IPv4 addresses a phone on the LAN could reach. Loopback and link-local
 * (169.254.x.x, what a machine gives itself when DHCP did not answer) are never entries.
 */
export interface DetectedInterface {
  /** The OS's interface name (`eth0`, `wlan0`, `Wi-Fi`, `en0`). */
  name: string;
  address: string;
  /** A bridge or adapter of containers and virtual machines: offered, but not in "all". */
  virtual: boolean;
}

export type InterfaceTable = NodeJS.Dict<NetworkInterfaceInfo[]>;

/**
 * Names of interfaces that only reach containers or virtual machines on this computer. A
 * phone on the LAN never reaches their addresses, so "all detected" leaves them out.
 */
const VIRTUAL_NAMES = [
  /^docker/,
  /^br-[0-9a-f]{6,}/,
  /^veth/,
  /^virbr/,
  /^vboxnet/,
  /^vmnet/,
  /^cni/,
  /^flannel/,
  /^podman/,
  /^lxcbr/,
  /^lxdbr/,
  /^vEthernet \((WSL|Default Switch)/i,
];

export function isVirtualInterface(name: string): boolean {
  return VIRTUAL_NAMES.some((re) => re.test(name));
}

function isIPv4Family(family: string | number): boolean {
  // Node 18.0-18.3 reported the family as a number.
  return family === "IPv4" || family === 4;
}

/** Detected interfaces, sorted by name then address; an address appears once. */
export function detectInterfaces(
  read: () => InterfaceTable = networkInterfaces,
): DetectedInterface[] {
  const table = read();
  const seen = new Set<string>();
  const out: DetectedInterface[] = [];
  for (const name of Object.keys(table).sort()) {
    const addresses = (table[name] ?? [])
      .filter((a) => isIPv4Family(a.family) && !a.internal)
      .map((a) => a.address)
      .filter((a) => !a.startsWith("169.254.") && !a.startsWith("127.") && a !== "0.0.0.0")
      .sort(compareAddresses);
    for (const address of addresses) {
      if (seen.has(address)) continue;
      seen.add(address);
      out.push({ name, address, virtual: isVirtualInterface(name) });
    }
  }
  return out;
}

/** Numeric order of dotted IPv4 addresses (192.168.1.9 before 192.168.1.10). */
export function compareAddresses(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < 4; i++) if (pa[i] !== pb[i]) return pa[i] - pb[i];
  return 0;
}
