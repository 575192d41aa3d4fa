import type { MihomoProxy } from "../types.js";
import {
  decodeBase64,
  fallbackName,
  isTrue,
  list,
  put,
  safeDecode,
  splitLink,
  toPort,
  transport,
  type ShareLink,
} from "./uri-common.js";

function text(value: unknown): string {
  if (typeof value === "string") return value.trim();
  if (typeof value === "number") return String(value);
  return "";
}

/** v2rayN's `vmess://base64({v, ps, add, port, id, aid, scy, net, type, host, path, tls, sni})`. */
export function parseVmess(link: string): MihomoProxy | null {
  const json = decodeBase64(link.slice("vmess://".length));
  if (!json) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return null;
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return null;
  const v = raw as Record<string, unknown>;
  const server = text(v.add);
  const port = toPort(typeof v.port === "string" ? v.port.trim() : v.port);
  if (!server || port === null) return null;
  const aidText = text(v.aid) || "0";
  const alterId = /^\d+$/.test(aidText) ? Number(aidText) : NaN;
  if (!Number.isInteger(alterId)) return null;
  const host = text(v.host);
  const sni = text(v.sni);
  const tr = transport(text(v.net), {
    path: text(v.path),
    host,
    headerType: text(v.type),
  });
  if (!tr) return null;
  const node: MihomoProxy = {
    name: text(v.ps) || fallbackName(server, port),
    type: "vmess",
    server,
    port,
    uuid: text(v.id),
    alterId,
    cipher: text(v.scy) || "auto",
    udp: true,
  };
  const tls = v.tls === true || text(v.tls).toLowerCase() === "tls";
  if (tls) {
    node.tls = true;
    put(
      node,
      "servername",
      sni || (tr.network === "ws" || tr.network === "h2" ? list(host)[0] : ""),
    );
    put(node, "alpn", list(text(v.alpn)));
    put(node, "client-fingerprint", text(v.fp));
    if (isTrue(text(v.allowInsecure)) || v["skip-cert-verify"] === true) {
      node["skip-cert-verify"] = true;
    }
  }
  Object.assign(node, tr);
  return node;
}

/** TLS and REALITY parameters shared by vless and trojan links. */
function applySecurity(node: MihomoProxy, parts: ShareLink, sniKey: string): boolean {
  const q = parts.query;
  const security = (q.get("security") ?? "").toLowerCase();
  if (security === "reality") {
    const pbk = q.get("pbk") ?? "";
    if (!pbk) return false;
    const reality: Record<string, unknown> = { "public-key": pbk };
    reality["short-id"] = q.get("sid") ?? "";
    node["reality-opts"] = reality;
  }
  put(node, sniKey, q.get("sni") ?? q.get("peer"));
  put(node, "client-fingerprint", q.get("fp"));
  put(node, "alpn", list(q.get("alpn")));
  if (isTrue(q.get("allowInsecure")) || isTrue(q.get("insecure"))) {
    node["skip-cert-verify"] = true;
  }
  return true;
}

function applyTransport(node: MihomoProxy, parts: ShareLink): boolean {
  const q = parts.query;
  const tr = transport(q.get("type") ?? "tcp", {
    path: q.get("path"),
    host: q.get("host"),
    headerType: q.get("headerType"),
    serviceName: q.get("serviceName") ?? q.get("path"),
  });
  if (!tr) return false;
  Object.assign(node, tr);
  return true;
}

/** `vless://uuid@host:port?security=reality|tls&sni&fp&pbk&sid&flow&type&path&host&serviceName#name`. */
export function parseVless(link: string): MihomoProxy | null {
  const parts = splitLink(link);
  const port = parts ? toPort(parts.portText) : null;
  if (!parts || port === null || !parts.userinfo) return null;
  const q = parts.query;
  const security = (q.get("security") ?? "").toLowerCase();
  const node: MihomoProxy = {
    name: parts.fragment.trim() || fallbackName(parts.host, port),
    type: "vless",
    server: parts.host,
    port,
    uuid: safeDecode(parts.userinfo),
    udp: true,
  };
  if (security === "tls" || security === "reality" || security === "xtls") {
    node.tls = true;
    if (!applySecurity(node, parts, "servername")) return null;
  }
  put(node, "flow", q.get("flow"));
  const encryption = q.get("encryption");
  if (encryption && encryption !== "none") node.encryption = encryption;
  if (!applyTransport(node, parts)) return null;
  return node;
}

/** `trojan://password@host:port?sni&type&path&host&allowInsecure#name` (TLS is implied). */
export function parseTrojan(link: string): MihomoProxy | null {
  const parts = splitLink(link);
  const port = parts ? toPort(parts.portText) : null;
  if (!parts || port === null || parts.userinfo === null) return null;
  const node: MihomoProxy = {
    name: parts.fragment.trim() || fallbackName(parts.host, port),
    type: "trojan",
    server: parts.host,
    port,
    password: safeDecode(parts.userinfo),
    udp: true,
  };
  if (!applySecurity(node, parts, "sni")) return null;
  if (!applyTransport(node, parts)) return null;
  return node;
}
