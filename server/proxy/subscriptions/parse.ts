import type { MihomoProxy } from "../types.js";
import { readClashProxies } from "./clash.js";
import { SubscriptionError } from "./errors.js";
import { decodeBase64, toPort } from "./uri-common.js";
import { parseHysteria2, parseTuic, parseWireguard } from "./uri-quic.js";
import { parseSs, parseSsr, ssPlugin } from "./uri-ss.js";
import { parseTrojan, parseVless, parseVmess } from "./uri-v2ray.js";
import { validateNode } from "./validate.js";

export type FeedFormat = "clash" | "base64" | "uri-list" | "sip008";

export interface ParsedSubscription {
  nodes: MihomoProxy[];
  skipped: number;
  format: FeedFormat;
}

const URI_PARSERS: Record<string, (link: string) => MihomoProxy | null> = {
  ss: parseSs,
  ssr: parseSsr,
  vmess: parseVmess,
  vless: parseVless,
  trojan: parseTrojan,
  hysteria2: parseHysteria2,
  hy2: parseHysteria2,
  tuic: parseTuic,
  wireguard: parseWireguard,
  wg: parseWireguard,
};

const LINK_LINE = /^[a-z][a-z0-9+.-]*:\/\//i;
/**
 * A line (not the first) that starts with a link. The leading blanks exclude line breaks so
 * that a run of empty lines is scanned once, not once per line (which was quadratic).
 */
const LINK_AFTER_FIRST_LINE = /^[^\S\r\n\u2028\u2029]*[a-z0-9]+:\/\//im;

interface Candidates {
  items: unknown[];
  /** Entries already known to be unusable (unreadable lines). */
  broken: number;
  format: FeedFormat;
}

function fromUriList(text: string): Candidates | null {
  const items: unknown[] = [];
  let broken = 0;
  let links = 0;
  for (const rawLine of text.split(/\r?\n|\r/)) {
    const line = rawLine.trim();
    if (!line || line.startsWith("#") || line.startsWith("//")) continue;
    const m = LINK_LINE.exec(line);
    const scheme = m ? line.slice(0, line.indexOf(":")).toLowerCase() : "";
    const parser = URI_PARSERS[scheme];
    if (!parser) {
      broken++;
      continue;
    }
    links++;
    let node: MihomoProxy | null = null;
    try {
      node = parser(line);
    } catch {
      node = null; // one malformed link never sinks the feed
    }
    if (node) items.push(node);
    else broken++;
  }
  return links > 0 ? { items, broken, format: "uri-list" } : null;
}

function fromSip008(doc: Record<string, unknown>): Candidates | null {
  if (!Array.isArray(doc.servers)) return null;
  const items: unknown[] = [];
  let broken = 0;
  for (const s of doc.servers as unknown[]) {
    if (!s || typeof s !== "object") {
      broken++;
      continue;
    }
    const e = s as Record<string, unknown>;
    const server = typeof e.server === "string" ? e.server.trim() : "";
    const port = toPort(e.server_port);
    const node: MihomoProxy = {
      name: String(e.remarks ?? "").trim() || `${server}:${port ?? ""}`,
      type: "ss",
      server,
      port: port ?? 0,
      cipher: typeof e.method === "string" ? e.method.toLowerCase() : "",
      password: e.password,
      udp: true,
    };
    if (typeof e.plugin === "string" && e.plugin) {
      const p = ssPlugin([e.plugin, e.plugin_opts ?? ""].join(";"));
      if (!p) {
        broken++;
        continue;
      }
      node.plugin = p.plugin;
      node["plugin-opts"] = p["plugin-opts"];
    }
    items.push(node);
  }
  return { items, broken, format: "sip008" };
}

function fromJson(text: string): Candidates | null {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return null;
  }
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) return null;
  const obj = doc as Record<string, unknown>;
  if (Array.isArray(obj.proxies)) return { items: obj.proxies, broken: 0, format: "clash" };
  return fromSip008(obj);
}

function detect(text: string, nested: boolean): Candidates | null {
  const trimmed = text.replace(/^\uFEFF/, "").trim();
  if (!trimmed) return null;
  if (trimmed.startsWith("{")) {
    const json = fromJson(trimmed);
    if (json) return json;
  }
  if (/^proxies\s*:/m.test(trimmed)) {
    const clash = readClashProxies(trimmed);
    if (clash && "proxies" in clash) return { items: clash.proxies, broken: 0, format: "clash" };
  }
  if (LINK_LINE.test(trimmed) || LINK_AFTER_FIRST_LINE.test(trimmed)) {
    const list = fromUriList(trimmed);
    if (list) return list;
  }
  if (!nested) {
    const decoded = decodeBase64(trimmed);
    if (decoded) {
      const inner = detect(decoded, true);
      if (inner) return { ...inner, format: "base64" };
    }
  }
  return null;
}

/**
 * Names are unique within one feed: later duplicates get ` (2)`, ` (3)`, ... (the smallest
 * number not taken yet). The search for a name resumes where the last one for that name
 * stopped, so a feed of thousands of identical names costs linear time, not quadratic.
 */
function uniqueNames(nodes: MihomoProxy[]): void {
  const used = new Set<string>();
  const next = new Map<string, number>();
  for (const node of nodes) {
    const base = node.name;
    if (used.has(base)) {
      // Taken names are never freed, so no number below the last one chosen is free again.
      let n = next.get(base) ?? 2;
      while (used.has(`${base} (${n})`)) n++;
      next.set(base, n + 1);
      node.name = `${base} (${n})`;
    }
    used.add(node.name);
  }
}

/**
 * Reads a subscription document (Clash/mihomo YAML, SIP008 JSON, base64 or plain URI list)
 * into mihomo proxy objects. Invalid single nodes are skipped and counted; an unreadable
 * document or one with no valid node is a SubscriptionError.
 */
export function parseSubscription(body: Buffer | string): ParsedSubscription {
  const text = typeof body === "string" ? body : body.toString("utf8");
  const found = detect(text, false);
  if (!found)
    throw new SubscriptionError(
      "subscription.format",
      "The subscription is not in a recognised format",
    );
  const nodes: MihomoProxy[] = [];
  let skipped = found.broken;
  for (const item of found.items) {
    const node = validateNode(item);
    if (node) nodes.push(node);
    else skipped++;
  }
  if (nodes.length === 0) {
    throw new SubscriptionError(
      "subscription.no_nodes",
      `The subscription contains no usable nodes (${skipped} skipped)`,
      { params: { skipped } },
    );
  }
  uniqueNames(nodes);
  return { nodes, skipped, format: found.format };
}
