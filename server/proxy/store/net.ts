import { isIPv4, isIPv6 } from "node:net";
import { domainToASCII } from "node:url";

/** Lower-cased ASCII hostname (IDNs become punycode), or null when it is no valid hostname. */
export function normaliseHostname(input: string): string | null {
  const trimmed = input.trim().toLowerCase();
  if (!trimmed || trimmed.length > 253) return null;
  const ascii = /^[\x21-\x7e]+$/.test(trimmed) ? trimmed : domainToASCII(trimmed);
  if (!ascii || ascii.length > 253) return null;
  const labels = ascii.split(".");
  for (const label of labels) {
    // Underscores appear in real service names (`_dmarc`), so they are allowed.
    if (!/^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/.test(label)) return null;
  }
  return ascii;
}

function ipv4ToBytes(ip: string): number[] {
  return ip.split(".").map(Number);
}

function ipv6ToBytes(ip: string): number[] | null {
  let text = ip;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".")) {
    const v4 = text.slice(lastColon + 1);
    if (!isIPv4(v4)) return null;
    tail = ipv4ToBytes(v4);
    text = text.slice(0, lastColon + 1) + "0:0";
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (s: string): number[] => (s ? s.split(":").map((h) => parseInt(h, 16)) : []);
  const head = parse(halves[0]);
  const rest = halves.length === 2 ? parse(halves[1]) : [];
  const groups =
    halves.length === 2
      ? [...head, ...new Array(8 - head.length - rest.length).fill(0), ...rest]
      : head;
  if (groups.length !== 8 || groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) {
    return null;
  }
  const bytes = groups.flatMap((g) => [g >> 8, g & 0xff]);
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

function formatIPv6(bytes: number[]): string {
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((bytes[i] << 8) | bytes[i + 1]);
  // RFC 5952: compress the longest run (length >= 2) of zero groups, the first on ties.
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(":");
  const left = hex.slice(0, bestStart).join(":");
  const right = hex.slice(bestStart + bestLen).join(":");
  return `${left}::${right}`;
}

/**
 * An IPv4 or IPv6 CIDR in canonical form (host bits cleared, IPv6 compressed); a bare
 * address becomes a single-host prefix. Null when invalid.
 */
export function normaliseCidr(input: string): string | null {
  const trimmed = input.trim().toLowerCase();
  const slash = trimmed.indexOf("/");
  const addr = slash < 0 ? trimmed : trimmed.slice(0, slash);
  const prefixText = slash < 0 ? null : trimmed.slice(slash + 1);
  const v4 = isIPv4(addr);
  if (!v4 && !isIPv6(addr)) return null;
  const bits = v4 ? 32 : 128;
  if (prefixText !== null && !/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = prefixText === null ? bits : Number(prefixText);
  if (prefix > bits) return null;
  const bytes = v4 ? ipv4ToBytes(addr) : ipv6ToBytes(addr);
  if (!bytes) return null;
  for (let i = 0; i < bytes.length; i++) {
    const keep = Math.max(0, Math.min(8, prefix - i * 8));
    bytes[i] &= (0xff << (8 - keep)) & 0xff;
  }
  const text = v4 ? bytes.join(".") : formatIPv6(bytes);
  return `${text}/${prefix}`;
}

export function isIp(value: string): boolean {
  return isIPv4(value) || isIPv6(value);
}
