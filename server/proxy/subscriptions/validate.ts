import type { MihomoProxy } from "../types.js";
import { toPort } from "./uri-common.js";

/** Shadowsocks ciphers mihomo accepts (its documentation's list). */
export const SS_CIPHERS = new Set([
  "aes-128-ctr", "aes-192-ctr", "aes-256-ctr",
  "aes-128-cfb", "aes-192-cfb", "aes-256-cfb",
  "aes-128-gcm", "aes-192-gcm", "aes-256-gcm",
  "aes-128-ccm", "aes-192-ccm", "aes-256-ccm",
  "aes-128-gcm-siv", "aes-256-gcm-siv",
  "chacha20-ietf", "chacha20", "xchacha20",
  "chacha20-ietf-poly1305", "xchacha20-ietf-poly1305",
  "chacha8-ietf-poly1305", "xchacha8-ietf-poly1305",
  "2022-blake3-aes-128-gcm", "2022-blake3-aes-256-gcm", "2022-blake3-chacha20-poly1305",
  "lea-128-gcm", "lea-192-gcm", "lea-256-gcm",
  "rabbit128-poly1305", "aegis-128l", "aegis-256", "aez-384", "deoxys-ii-256-128",
  "rc4-md5", "none",
]); // prettier-ignore

const VMESS_CIPHERS = new Set(["auto", "none", "zero", "aes-128-gcm", "chacha20-poly1305"]);
const SS_PLUGINS = new Set([
  "obfs",
  "v2ray-plugin",
  "gost-plugin",
  "shadow-tls",
  "restls",
  "kcptun",
]);

function has(node: Record<string, unknown>, key: string): boolean {
  const v = node[key];
  return (typeof v === "string" && v.trim() !== "") || typeof v === "number";
}

/** Credentials and options each type needs before mihomo will load it. */
const REQUIRED: Record<string, (n: Record<string, unknown>) => boolean> = {
  ss: (n) =>
    has(n, "password") &&
    SS_CIPHERS.has(String(n.cipher ?? "").toLowerCase()) &&
    (n.plugin === undefined || SS_PLUGINS.has(String(n.plugin))),
  ssr: (n) => has(n, "cipher") && has(n, "password") && has(n, "obfs") && has(n, "protocol"),
  vmess: (n) =>
    has(n, "uuid") &&
    Number.isInteger(n.alterId) &&
    (n.alterId as number) >= 0 &&
    VMESS_CIPHERS.has(String(n.cipher)),
  vless: (n) => has(n, "uuid"),
  trojan: (n) => has(n, "password"),
  hysteria: (n) => has(n, "up") && has(n, "down"),
  hysteria2: (n) => has(n, "password"),
  tuic: (n) => (has(n, "uuid") && has(n, "password")) || has(n, "token"),
  wireguard: (n) =>
    has(n, "private-key") &&
    (has(n, "public-key") || Array.isArray(n.peers)) &&
    (has(n, "ip") || has(n, "ipv6") || Array.isArray(n.peers)),
  snell: (n) => has(n, "psk"),
  anytls: (n) => has(n, "password"),
  mieru: (n) => has(n, "username") && has(n, "password"),
  ssh: (n) => has(n, "username"),
  socks5: () => true,
  http: () => true,
};

// eslint-disable-next-line no-control-regex -- stripping them is the point
const CONTROL = /[\u0000-\u001f\u007f]+/g;

function cleanText(value: unknown): string {
  if (typeof value !== "string" && typeof value !== "number") return "";
  // Control characters break log lines and YAML round trips; names are shown to people.
  return String(value).replace(CONTROL, " ").trim();
}

/**
 * Checks one node and brings it to the shape mihomo loads: trimmed name, trimmed server,
 * integer port, vmess defaults for fields mihomo requires. Null when it cannot be used.
 */
export function validateNode(input: unknown): MihomoProxy | null {
  if (!input || typeof input !== "object" || Array.isArray(input)) return null;
  const raw = input as Record<string, unknown>;
  const type = typeof raw.type === "string" ? raw.type.trim().toLowerCase() : "";
  const check = REQUIRED[type];
  if (!check) return null;
  const name = cleanText(raw.name);
  const server = cleanText(raw.server);
  const port = toPort(raw.port);
  if (!name || !server || /\s/.test(server) || port === null) return null;
  const node: MihomoProxy = { ...raw, name, type, server, port };
  if (type === "vmess") {
    // mihomo refuses a vmess node without these; providers often leave them out.
    node.alterId = raw.alterId === undefined ? 0 : toInteger(raw.alterId);
    node.cipher = raw.cipher === undefined || raw.cipher === "" ? "auto" : raw.cipher;
  }
  if (type === "ss" && typeof raw.cipher === "string")
    node.cipher = raw.cipher.trim().toLowerCase();
  return check(node) ? node : null;
}

function toInteger(value: unknown): unknown {
  if (typeof value === "string" && /^\s*\d+\s*$/.test(value)) return Number(value);
  return value;
}
