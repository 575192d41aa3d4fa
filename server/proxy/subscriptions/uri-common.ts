import type { MihomoProxy } from "../types.js";

/** A share link split into its parts; values are percent-decoded, `+` is kept (base64 keys). */
export interface ShareLink {
  scheme: string;
  userinfo: string | null;
  host: string;
  /** The raw port text: usually one number, sometimes a hysteria2 port list. */
  portText: string;
  query: Map<string, string>;
  fragment: string;
}

export function safeDecode(text: string): string {
  if (!text.includes("%")) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Standard or URL-safe base64, padding optional, whitespace ignored; null when not base64. */
export function decodeBase64(text: string): string | null {
  const s = text.replace(/\s+/g, "");
  if (!s || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(s) || s.length % 4 === 1) return null;
  const out = Buffer.from(s, "base64").toString("utf8");
  if (out.includes("\uFFFD")) return null;
  return out;
}

export function parseQuery(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of text.split("&")) {
    if (!part) continue;
    const eq = part.indexOf("=");
    const key = safeDecode(eq < 0 ? part : part.slice(0, eq));
    if (!out.has(key)) out.set(key, eq < 0 ? "" : safeDecode(part.slice(eq + 1)));
  }
  return out;
}

/** `scheme://[userinfo@]host[:port][/path][?query][#fragment]`; null when it has no host. */
export function splitLink(link: string): ShareLink | null {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(link);
  if (!m || !m[1]) return null;
  const scheme = m[1].toLowerCase();
  let rest = link.slice(m[0].length);
  let fragment = "";
  const hash = rest.indexOf("#");
  if (hash >= 0) {
    fragment = safeDecode(rest.slice(hash + 1));
    rest = rest.slice(0, hash);
  }
  let queryText = "";
  const q = rest.indexOf("?");
  if (q >= 0) {
    queryText = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  // A password may hold an unencoded `@`: the host follows the last one.
  const at = rest.lastIndexOf("@");
  const userinfo = at >= 0 ? rest.slice(0, at) : null;
  let authority = at >= 0 ? rest.slice(at + 1) : rest;
  const slash = authority.indexOf("/");
  if (slash >= 0) authority = authority.slice(0, slash);
  let host: string;
  let portText = "";
  if (authority.startsWith("[")) {
    const close = authority.indexOf("]");
    if (close < 0) return null;
    host = authority.slice(1, close);
    const after = authority.slice(close + 1);
    if (after.startsWith(":")) portText = after.slice(1);
    else if (after) return null;
  } else {
    const colon = authority.indexOf(":");
    host = colon >= 0 ? authority.slice(0, colon) : authority;
    portText = colon >= 0 ? authority.slice(colon + 1) : "";
  }
  host = safeDecode(host).trim();
  if (!host) return null;
  return { scheme, userinfo, host, portText, query: parseQuery(queryText), fragment };
}

/** A port number 1..65535, or null. */
export function toPort(value: unknown): number | null {
  const n =
    typeof value === "number"
      ? value
      : typeof value === "string" && /^\s*\d+\s*$/.test(value)
        ? Number(value)
        : NaN;
  return Number.isInteger(n) && n >= 1 && n <= 65535 ? n : null;
}

export function isTrue(value: string | undefined): boolean {
  if (value === undefined) return false;
  const v = value.trim().toLowerCase();
  return v === "1" || v === "true" || v === "yes";
}

export function list(value: string | undefined): string[] {
  if (!value) return [];
  return value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The name shown for a node whose link carried none. */
export function fallbackName(server: string, port: number | string): string {
  return `${server}:${port}`;
}

/** Sets a field only when the value is meaningful (mihomo treats empty strings as values). */
export function put(target: MihomoProxy, key: string, value: unknown): void {
  if (value === undefined || value === null || value === "") return;
  if (Array.isArray(value) && value.length === 0) return;
  target[key] = value;
}

/**
 * The transport part shared by vmess, vless and trojan links: network plus its options,
 * as mihomo spells them. Null for transports mihomo does not have (kcp, quic).
 */
export function transport(
  net: string,
  opts: { path?: string; host?: string; headerType?: string; serviceName?: string },
): Record<string, unknown> | null {
  const network = (net || "tcp").toLowerCase();
  const host = opts.host?.trim() ?? "";
  const path = opts.path ?? "";
  switch (network) {
    case "tcp":
    case "raw":
      if (opts.headerType === "http") {
        const http: Record<string, unknown> = { method: "GET", path: list(path || "/") };
        if (host) http.headers = { Host: list(host) };
        return { network: "http", "http-opts": http };
      }
      return {};
    case "ws":
    case "websocket":
    case "httpupgrade": {
      const ws: Record<string, unknown> = {};
      // `?ed=2048` in a ws path is xray's early-data hint; mihomo wants it as options.
      const ed = /^(.*?)[?&]ed=(\d+)(.*)$/.exec(path);
      ws.path = ed ? (ed[1] ?? "") + (ed[3] ? ed[3].replace(/^&/, "?") : "") || "/" : path || "/";
      if (host) ws.headers = { Host: host };
      if (ed) {
        ws["max-early-data"] = Number(ed[2]);
        ws["early-data-header-name"] = "Sec-WebSocket-Protocol";
      }
      if (network === "httpupgrade") ws["v2ray-http-upgrade"] = true;
      return { network: "ws", "ws-opts": ws };
    }
    case "grpc":
      return {
        network: "grpc",
        "grpc-opts": { "grpc-service-name": opts.serviceName ?? path ?? "" },
      };
    case "h2": {
      const h2: Record<string, unknown> = { path: path || "/" };
      if (host) h2.host = list(host);
      return { network: "h2", "h2-opts": h2 };
    }
    case "http": {
      const http: Record<string, unknown> = { method: "GET", path: list(path || "/") };
      if (host) http.headers = { Host: list(host) };
      return { network: "http", "http-opts": http };
    }
    default:
      return null;
  }
}
