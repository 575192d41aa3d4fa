import type { MihomoProxy } from "../types.js";
import {
  decodeBase64,
  fallbackName,
  parseQuery,
  put,
  safeDecode,
  splitLink,
  toPort,
} from "./uri-common.js";

/**
 * A SIP003 plugin string (`obfs-local;obfs=http;obfs-host=x`) as mihomo's `plugin` and
 * `plugin-opts`. Null for plugins mihomo does not have.
 */
export function ssPlugin(
  spec: string,
): { plugin: string; "plugin-opts": Record<string, unknown> } | null {
  const parts = spec.split(";").map((s) => s.trim());
  const name = (parts.shift() ?? "").toLowerCase();
  const opts = new Map<string, string>();
  for (const p of parts) {
    if (!p) continue;
    const eq = p.indexOf("=");
    opts.set(eq < 0 ? p : p.slice(0, eq), eq < 0 ? "true" : p.slice(eq + 1));
  }
  switch (name) {
    case "obfs-local":
    case "simple-obfs":
    case "obfs": {
      const mode = opts.get("obfs") ?? opts.get("mode");
      if (mode !== "http" && mode !== "tls") return null;
      const out: Record<string, unknown> = { mode };
      if (opts.get("obfs-host") ?? opts.get("host"))
        out.host = opts.get("obfs-host") ?? opts.get("host");
      return { plugin: "obfs", "plugin-opts": out };
    }
    case "v2ray-plugin":
    case "gost-plugin": {
      const mode = opts.get("mode") ?? "websocket";
      if (mode !== "websocket") return null; // mihomo has no QUIC mode
      const out: Record<string, unknown> = { mode };
      if (opts.has("tls")) out.tls = opts.get("tls") !== "false";
      if (opts.get("host")) out.host = opts.get("host");
      if (opts.get("path")) out.path = opts.get("path");
      if (opts.has("mux")) out.mux = opts.get("mux") !== "false" && opts.get("mux") !== "0";
      return { plugin: name, "plugin-opts": out };
    }
    case "shadow-tls": {
      const out: Record<string, unknown> = {};
      if (opts.get("host")) out.host = opts.get("host");
      if (opts.get("password")) out.password = opts.get("password");
      const version = Number(opts.get("version") ?? "2");
      if (Number.isInteger(version)) out.version = version;
      return { plugin: "shadow-tls", "plugin-opts": out };
    }
    default:
      return null;
  }
}

function ssNode(
  name: string,
  server: string,
  port: number,
  method: string,
  password: string,
  plugin: string | undefined,
): MihomoProxy | null {
  const node: MihomoProxy = {
    name: name || fallbackName(server, port),
    type: "ss",
    server,
    port,
    cipher: method.trim().toLowerCase(),
    password,
    udp: true,
  };
  if (plugin) {
    const p = ssPlugin(plugin);
    if (!p) return null;
    node.plugin = p.plugin;
    node["plugin-opts"] = p["plugin-opts"];
  }
  return node;
}

function splitCredentials(text: string): [string, string] | null {
  const colon = text.indexOf(":");
  if (colon <= 0) return null;
  return [text.slice(0, colon), text.slice(colon + 1)];
}

/** SIP002 `ss://base64(method:pass)@host:port?plugin=..#name` and legacy `ss://base64(all)#name`. */
export function parseSs(link: string): MihomoProxy | null {
  const parts = splitLink(link);
  if (parts?.userinfo) {
    const info = safeDecode(parts.userinfo);
    // SIP022 keys are sent percent-encoded in the clear; older links base64 them.
    const creds = splitCredentials(info.includes(":") ? info : (decodeBase64(info) ?? ""));
    const port = toPort(parts.portText);
    if (!creds || port === null) return null;
    return ssNode(
      parts.fragment.trim(),
      parts.host,
      port,
      creds[0],
      creds[1],
      parts.query.get("plugin"),
    );
  }
  // Legacy: everything between `ss://` and `#`/`?` is base64 of method:pass@host:port.
  let body = link.slice("ss://".length);
  let name = "";
  const hash = body.indexOf("#");
  if (hash >= 0) {
    name = safeDecode(body.slice(hash + 1)).trim();
    body = body.slice(0, hash);
  }
  let query = new Map<string, string>();
  const q = body.indexOf("?");
  if (q >= 0) {
    query = parseQuery(body.slice(q + 1));
    body = body.slice(0, q);
  }
  const decoded = decodeBase64(safeDecode(body).replace(/\/$/, ""));
  if (!decoded) return null;
  const at = decoded.lastIndexOf("@");
  if (at < 0) return null;
  const creds = splitCredentials(decoded.slice(0, at));
  const inner = splitLink(`ss://${decoded.slice(at + 1)}`);
  const port = inner ? toPort(inner.portText) : null;
  if (!creds || !inner || port === null) return null;
  return ssNode(name, inner.host, port, creds[0], creds[1], query.get("plugin"));
}

/** `ssr://base64(host:port:protocol:method:obfs:base64(pass)/?obfsparam=..&remarks=..)`. */
export function parseSsr(link: string): MihomoProxy | null {
  const decoded = decodeBase64(link.slice("ssr://".length));
  if (!decoded) return null;
  const split = decoded.indexOf("/?");
  const main = split >= 0 ? decoded.slice(0, split) : decoded.replace(/\/$/, "");
  const params = parseQuery(split >= 0 ? decoded.slice(split + 2) : "");
  // The host may be IPv6 with colons: the five other fields are taken from the right.
  const fields = main.split(":");
  if (fields.length < 6) return null;
  const [passB64, obfs, method, protocol, portText] = [
    fields.pop() ?? "",
    fields.pop() ?? "",
    fields.pop() ?? "",
    fields.pop() ?? "",
    fields.pop() ?? "",
  ];
  const server = fields.join(":").replace(/^\[(.*)\]$/, "$1");
  const port = toPort(portText);
  const password = decodeBase64(passB64);
  if (port === null || password === null || !server) return null;
  const b64 = (key: string): string => decodeBase64(params.get(key) ?? "") ?? "";
  const node: MihomoProxy = {
    name: b64("remarks").trim() || fallbackName(server, port),
    type: "ssr",
    server,
    port,
    cipher: method,
    password,
    obfs,
    protocol,
    udp: true,
  };
  put(node, "obfs-param", b64("obfsparam"));
  put(node, "protocol-param", b64("protoparam"));
  return node;
}
