import { SubscriptionError } from "./errors.js";
import { fastProxies } from "./fast-yaml.js";
import { inlineAliases } from "./yaml-aliases.js";
import { refuseDeepFlow } from "./yaml-depth.js";
import { isMap, isScalar, isSeq, parseDocument, type Node as YamlNode, type YAMLMap } from "yaml";

/**
 * Fields mihomo decodes as strings. YAML 1.2 reads `password: 0123` as the number 123; Go's
 * decoder hands mihomo the text "0123". Plain scalars under these keys keep their source text.
 */
export const STRING_KEYS = new Set([
  "name", "server", "password", "uuid", "cipher", "username", "psk", "token", "auth",
  "auth-str", "auth_str", "obfs", "obfs-password", "obfs-param", "protocol", "protocol-param",
  "short-id", "public-key", "private-key", "pre-shared-key", "servername", "sni", "path",
  "host", "Host", "grpc-service-name", "flow", "client-fingerprint", "fingerprint", "ports",
  "ip", "ipv6", "up", "down", "version",
]); // prettier-ignore

function isMergeKey(key: unknown): boolean {
  return typeof key === "symbol" || key === "<<";
}

/** A map's entries as the library's toJS sees them: own keys (last wins), then merged ones. */
function entries(node: YAMLMap): Map<string, unknown> {
  const own = new Map<string, unknown>();
  const merged: unknown[] = [];
  for (const pair of node.items) {
    const key = isScalar(pair.key) ? pair.key.value : null;
    if (isMergeKey(key)) {
      const source = pair.value;
      if (isSeq(source)) merged.push(...source.items);
      else merged.push(source);
    } else if (typeof key === "string") own.set(key, pair.value);
  }
  for (const source of merged) {
    if (!isMap(source)) continue;
    for (const [key, value] of entries(source)) if (!own.has(key)) own.set(key, value);
  }
  return own;
}

function keepSourceText(node: unknown, js: unknown, depth: number): void {
  if (depth > 8 || !js || typeof js !== "object") return;
  if (isSeq(node) && Array.isArray(js)) {
    node.items.forEach((item, i) => keepSourceText(item, js[i], depth + 1));
    return;
  }
  if (!isMap(node) || Array.isArray(js)) return;
  const target = js as Record<string, unknown>;
  for (const [key, value] of entries(node)) {
    if (isScalar(value)) {
      if (
        STRING_KEYS.has(key) &&
        value.type === "PLAIN" &&
        typeof value.value !== "string" &&
        value.source !== undefined &&
        value.value !== null
      ) {
        target[key] = value.source;
      }
    } else {
      keepSourceText(value, target[key], depth + 1);
    }
  }
}

export type ClashReadResult = { proxies: unknown[] } | { error: string } | null;

/**
 * Reads a Clash/mihomo YAML (or JSON) document's `proxies:` list. Null when the document
 * has no `proxies` list at all; `error` when it is not readable YAML.
 */
export function readClashProxies(text: string): ClashReadResult {
  const fast = fastProxies(text, STRING_KEYS);
  if (fast) return { proxies: fast };
  return readWithLibrary(text);
}

/** The general path: any YAML the library reads, anchors and merge keys included. */
export function readWithLibrary(text: string): ClashReadResult {
  try {
    return readDocument(text);
  } catch (err) {
    if (err instanceof SubscriptionError) throw err;
    // The library reports most faults as document errors; what it throws is just as fatal.
    if (err instanceof RangeError && /call stack/i.test(err.message)) {
      throw new SubscriptionError(
        "subscription.yaml_depth",
        "The subscription's YAML is nested too deeply to read",
      );
    }
    const detail = err instanceof Error ? err.message : String(err);
    throw new SubscriptionError(
      "subscription.yaml_invalid",
      `The subscription's YAML could not be read: ${detail}`,
      { params: { detail } },
    );
  }
}

function readDocument(text: string): ClashReadResult {
  refuseDeepFlow(text);
  const doc = parseDocument(text, { merge: true, uniqueKeys: false, prettyErrors: false });
  if (doc.errors.length > 0) return { error: doc.errors[0]?.message ?? "invalid YAML" };
  const contents: YamlNode | null = doc.contents as YamlNode | null;
  if (!isMap(contents)) return null;
  const seq = contents.get("proxies", true);
  if (seq === undefined || seq === null) return null;
  // Linear in the expanded size, bounded; no alias is left for the library to resolve.
  inlineAliases(doc);
  const proxiesNode = (doc.contents as YAMLMap).get("proxies", true);
  if (!isSeq(proxiesNode)) {
    return isScalar(proxiesNode) && proxiesNode.value === null ? { proxies: [] } : null;
  }
  const js = doc.toJS() as { proxies?: unknown };
  const proxies = Array.isArray(js.proxies) ? js.proxies : [];
  proxiesNode.items.forEach((item, i) => keepSourceText(item, proxies[i], 0));
  return { proxies };
}
