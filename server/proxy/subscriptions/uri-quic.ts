import type { MihomoProxy } from "../types.js";
import { fallbackName, isTrue, list, put, safeDecode, splitLink, toPort } from "./uri-common.js";

/** Port text of a hysteria2 link: one port, or a hopping list like `443,20000-30000`. */
function hy2Ports(portText: string): { port: number; ports?: string } | null {
  const single = toPort(portText || "443");
  if (single !== null) return { port: single };
  if (!/^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(portText)) return null;
  const first = toPort(portText.split(/[,-]/)[0]);
  return first === null ? null : { port: first, ports: portText };
}

/** `hysteria2://auth@host:port/?sni&insecure&obfs&obfs-password&pinSHA256&mport#name` (also hy2://). */
export function parseHysteria2(link: string): MihomoProxy | null {
  const parts = splitLink(link);
  if (!parts) return null;
  const ports = hy2Ports(parts.portText);
  if (!ports) return null;
  const q = parts.query;
  const node: MihomoProxy = {
    name: parts.fragment.trim() || fallbackName(parts.host, ports.port),
    type: "hysteria2",
    server: parts.host,
    port: ports.port,
    password: safeDecode(parts.userinfo ?? q.get("auth") ?? ""),
  };
  put(node, "ports", q.get("mport") ?? ports.ports);
  put(node, "sni", q.get("sni") ?? q.get("peer"));
  if (isTrue(q.get("insecure")) || isTrue(q.get("allowInsecure"))) node["skip-cert-verify"] = true;
  const obfs = q.get("obfs");
  if (obfs && obfs !== "none") {
    node.obfs = obfs;
    put(node, "obfs-password", q.get("obfs-password"));
  }
  put(node, "fingerprint", q.get("pinSHA256"));
  put(node, "alpn", list(q.get("alpn")));
  put(node, "up", q.get("up") ?? q.get("upmbps"));
  put(node, "down", q.get("down") ?? q.get("downmbps"));
  return node;
}

/** `tuic://uuid:password@host:port?congestion_control&udp_relay_mode&alpn&sni&allow_insecure#name`. */
export function parseTuic(link: string): MihomoProxy | null {
  const parts = splitLink(link);
  const port = parts ? toPort(parts.portText) : null;
  if (!parts || port === null || !parts.userinfo) return null;
  const info = parts.userinfo;
  const colon = info.indexOf(":");
  const q = parts.query;
  const node: MihomoProxy = {
    name: parts.fragment.trim() || fallbackName(parts.host, port),
    type: "tuic",
    server: parts.host,
    port,
  };
  if (colon >= 0) {
    node.uuid = safeDecode(info.slice(0, colon));
    node.password = safeDecode(info.slice(colon + 1));
  } else {
    node.token = safeDecode(info); // TUIC v4
  }
  put(node, "sni", q.get("sni"));
  put(node, "alpn", list(q.get("alpn")));
  put(node, "congestion-controller", q.get("congestion_control") ?? q.get("congestion-controller"));
  put(node, "udp-relay-mode", q.get("udp_relay_mode") ?? q.get("udp-relay-mode"));
  if (isTrue(q.get("allow_insecure")) || isTrue(q.get("insecure"))) node["skip-cert-verify"] = true;
  if (isTrue(q.get("disable_sni"))) node["disable-sni"] = true;
  if (isTrue(q.get("reduce_rtt"))) node["reduce-rtt"] = true;
  node.udp = true;
  return node;
}

function firstOf(q: Map<string, string>, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const v = q.get(k);
    if (v !== undefined && v !== "") return v;
  }
  return undefined;
}

/**
 * `wireguard://privatekey@host:port?publickey&address=10.0.0.2/32,fd00::2/128&mtu&reserved
 * &presharedkey#name` (also wg://).
 */
export function parseWireguard(link: string): MihomoProxy | null {
  const parts = splitLink(link);
  const port = parts ? toPort(parts.portText) : null;
  if (!parts || port === null) return null;
  const q = parts.query;
  const privateKey = safeDecode(
    parts.userinfo ?? firstOf(q, "privatekey", "private-key", "private_key") ?? "",
  );
  const node: MihomoProxy = {
    name: parts.fragment.trim() || fallbackName(parts.host, port),
    type: "wireguard",
    server: parts.host,
    port,
    "private-key": privateKey,
  };
  put(node, "public-key", firstOf(q, "publickey", "public-key", "public_key", "peer_public_key"));
  for (const addr of list(firstOf(q, "address", "ip", "ips"))) {
    const ip = addr.replace(/\/\d+$/, "").replace(/^\[(.*)\]$/, "$1");
    if (ip.includes(":")) node.ipv6 ??= ip;
    else node.ip ??= ip;
  }
  put(node, "pre-shared-key", firstOf(q, "presharedkey", "pre-shared-key", "psk"));
  const mtu = Number(q.get("mtu"));
  if (Number.isInteger(mtu) && mtu > 0) node.mtu = mtu;
  const reserved = q.get("reserved");
  if (reserved) {
    const bytes = list(reserved).map(Number);
    node.reserved =
      bytes.length === 3 && bytes.every((b) => Number.isInteger(b) && b >= 0 && b < 256)
        ? bytes
        : reserved;
  }
  node.udp = true;
  return node;
}
