import { isIP } from "node:net";

/** A MAC address as devices are keyed by it (`aa:bb:cc:dd:ee:ff`), or null when it is none. */
export function canonicalMac(text: string): string | null {
  const hex = text
    .trim()
    .toLowerCase()
    .replace(/[:\-.]/g, "");
  if (!/^[0-9a-f]{12}$/.test(hex)) return null;
  return hex.match(/../g)!.join(":");
}

/** The locally administered bit: a private (randomised) address, registered to no maker. */
export function isPrivateMac(mac: string): boolean {
  return (Number.parseInt(mac.slice(0, 2), 16) & 0x02) !== 0;
}

/**
 * An IP address as devices are keyed by it: IPv4 dotted, IPv6 lower case and compressed; an
 * IPv4 address written as IPv6 (`::ffff:192.168.1.5`, how a dual-stack socket reports it)
 * becomes the IPv4 one. Null when the text is no address.
 */
export function canonicalIp(text: string): string | null {
  const t = text
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, "");
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(t);
  if (mapped && isIP(mapped[1]) === 4) return mapped[1];
  const kind = isIP(t);
  if (kind === 4) return t.split(".").map(Number).join(".");
  if (kind !== 6) return null;
  try {
    return new URL(`http://[${t}]/`).hostname.replace(/^\[|\]$/g, "");
  } catch {
    return null;
  }
}

/**
 * Source addresses that are the gateway itself, never a device: loopback, the unspecified
 * address, and the range the core gives its own TUN interface (198.18.0.0/16, its fake-ip
 * range too: no LAN device has such an address).
 */
export function isGatewayItself(ip: string): boolean {
  return (
    ip === "::1" ||
    ip === "::" ||
    ip === "0.0.0.0" ||
    ip.startsWith("127.") ||
    ip.startsWith("198.18.")
  );
}

/** `/32` for IPv4, `/128` for IPv6: the one address as a network. */
export function hostCidr(ip: string): string {
  return `${ip}/${ip.includes(":") ? 128 : 32}`;
}
