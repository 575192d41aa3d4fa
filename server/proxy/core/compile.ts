import { stringify } from "yaml";
import {
  GROUP_AUTO,
  GROUP_PROXY,
  coreNodeName,
  coreNodePrefix,
  parseNodeId,
  providerName,
  type CoreInput,
  type RuleRecord,
} from "../types.js";

/** Name of the TUN device the compiled config asks for, so status can find it. */
export const TUN_DEVICE = "gatehouse0";
export const REJECT = "REJECT";
export const DIRECT = "DIRECT";

/** Internal, loopback, link-local and multicast networks; always DIRECT. */
export const INTERNAL_CIDRS = [
  "10.0.0.0/8",
  "172.16.0.0/12",
  "192.168.0.0/16",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "224.0.0.0/4",
  "::1/128",
  "fc00::/7",
  "fe80::/10",
  "ff00::/8",
];
export const INTERNAL_SUFFIXES = ["local", "lan"];

export interface CompileOptions {
  controllerPort: number;
  secret: string;
}

export interface CompiledConfig {
  /** The core's config.yaml. */
  yaml: string;
  /** Provider files by subscription id (`providers/<id>.yaml`), each `proxies: [...]`. */
  providers: Map<string, string>;
}

export function providerPath(subscriptionId: string): string {
  return `./providers/${subscriptionId}.yaml`;
}

/**
 * What the PROXY selector must point at: the automatic group, the chosen node's core
 * name, or REJECT when manual mode has no valid choice (never another node or DIRECT).
 */
export function selectionTarget(input: CoreInput): string {
  const { selectionMode, selectedNode } = input.settings;
  if (selectionMode === "auto") return GROUP_AUTO;
  const ref = parseNodeId(selectedNode);
  if (!ref || ref.provider !== providerName(ref.subscriptionId)) return REJECT;
  const sub = input.subscriptions.find((s) => s.id === ref.subscriptionId);
  if (!sub || !sub.nodes.some((n) => n.name === ref.name)) return REJECT;
  return coreNodeName(ref.subscriptionId, ref.name);
}

function customRule(rule: RuleRecord): string | null {
  if (!rule.enabled) return null;
  const target = rule.action === "PROXY" ? GROUP_PROXY : DIRECT;
  // Values are validated on save; commas would split a rule line, so refuse them here too.
  if (!rule.value || rule.value.includes(",")) return null;
  switch (rule.type) {
    case "DOMAIN":
      return `DOMAIN,${rule.value},${target}`;
    case "DOMAIN-SUFFIX":
      return `DOMAIN-SUFFIX,${rule.value},${target}`;
    case "IP-CIDR":
      return `${rule.value.includes(":") ? "IP-CIDR6" : "IP-CIDR"},${rule.value},${target},no-resolve`;
    default:
      return null;
  }
}

/** Rules in the spec's order: internal, custom, mainland sets, everything else. */
export function compileRules(rules: RuleRecord[]): string[] {
  const out: string[] = [];
  for (const cidr of INTERNAL_CIDRS) {
    out.push(`${cidr.includes(":") ? "IP-CIDR6" : "IP-CIDR"},${cidr},${DIRECT},no-resolve`);
  }
  for (const suffix of INTERNAL_SUFFIXES) out.push(`DOMAIN-SUFFIX,${suffix},${DIRECT}`);
  for (const rule of rules) {
    const line = customRule(rule);
    if (line) out.push(line);
  }
  out.push(`GEOSITE,cn,${DIRECT}`, `GEOIP,CN,${DIRECT},no-resolve`, `MATCH,${GROUP_PROXY}`);
  return out;
}

/** Compiles the stored state into mihomo's configuration and its provider files. */
export function compileConfig(input: CoreInput, opts: CompileOptions): CompiledConfig {
  const { settings } = input;
  const healthCheck = {
    enable: true,
    url: settings.testURL,
    interval: 600,
    timeout: settings.testTimeoutMS,
    lazy: true,
  };
  // An empty file provider makes mihomo fall back to its DIRECT-like COMPATIBLE proxy, so
  // subscriptions without nodes contribute no provider at all.
  const withNodes = input.subscriptions.filter((s) => s.nodes.length > 0);
  const providers = new Map<string, string>();
  const proxyProviders: Record<string, unknown> = {};
  for (const sub of withNodes) {
    // JSON is YAML (flow style) to mihomo, and writes ~100x faster than block YAML: a
    // 10,000-node provider takes milliseconds instead of more than a second.
    providers.set(sub.id, `${JSON.stringify({ proxies: sub.nodes })}\n`);
    proxyProviders[providerName(sub.id)] = {
      type: "file",
      path: providerPath(sub.id),
      "health-check": healthCheck,
      override: { "additional-prefix": coreNodePrefix(sub.id) },
    };
  }
  const use = withNodes.map((s) => providerName(s.id));

  const auto: Record<string, unknown> = {
    name: GROUP_AUTO,
    type: "url-test",
    url: settings.testURL,
    interval: 300,
    tolerance: 50,
    timeout: settings.testTimeoutMS,
    lazy: false,
  };
  if (use.length > 0) auto.use = use;
  else auto.proxies = [REJECT];

  // A selector without a stored choice uses its first member: manual mode starts on
  // REJECT until the chosen node is applied, so no other node is used silently.
  const manual = settings.selectionMode === "manual";
  const proxy: Record<string, unknown> = {
    name: GROUP_PROXY,
    type: "select",
    proxies: manual ? [REJECT, GROUP_AUTO] : [GROUP_AUTO, REJECT],
  };
  if (use.length > 0) proxy.use = use;

  const config: Record<string, unknown> = {
    "mixed-port": settings.mixedPort,
    "allow-lan": true,
    "bind-address": "*",
    mode: settings.proxyEnabled ? "rule" : "direct",
    "log-level": "info",
    ipv6: true,
    "external-controller": `127.0.0.1:${opts.controllerPort}`,
    secret: opts.secret,
    profile: { "store-selected": false, "store-fake-ip": false },
    dns: {
      enable: true,
      listen: `0.0.0.0:${settings.dnsPort}`,
      ipv6: false,
      "enhanced-mode": settings.tunEnabled ? "fake-ip" : "redir-host",
      "fake-ip-range": "198.18.0.1/16",
      "default-nameserver": ["223.5.5.5", "119.29.29.29"],
      nameserver: ["https://223.5.5.5/dns-query", "https://doh.pub/dns-query"],
      fallback: ["https://1.1.1.1/dns-query", "https://8.8.8.8/dns-query"],
    },
  };
  if (settings.tunEnabled) {
    config.tun = {
      enable: true,
      device: TUN_DEVICE,
      stack: "mixed",
      "auto-route": true,
      "auto-redirect": true,
      "auto-detect-interface": true,
      "dns-hijack": ["any:53", "tcp://any:53"],
    };
  }
  if (withNodes.length > 0) config["proxy-providers"] = proxyProviders;
  config["proxy-groups"] = [auto, proxy];
  config.rules = compileRules(input.rules);
  return { yaml: stringify(config), providers };
}
