import { isIP, isIPv4 } from "node:net";
import { stringify } from "yaml";
import { normaliseCidr } from "../store/net.js";
import { nodesJson } from "../store/nodes-json.js";
import {
  GROUP_AUTO,
  GROUP_PROXY,
  coreNodeName,
  coreNodePrefix,
  parseNodeId,
  providerName,
  type CoreInput,
  type DeviceRule,
  type MihomoProxy,
  type RuleRecord,
  type Settings,
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

/** Where the gateway's own programs reach the core from; always allowed in. */
export const LOOPBACK = "127.0.0.1";
export const LOOPBACK_CIDRS = ["127.0.0.0/8", "::1/128"];
/** Name of the extra mixed listener on the LAN address. */
export const LAN_LISTENER = "gatehouse-lan";

/**
 * The LAN address the core listens on besides loopback, or null. Settings validation accepts
 * any IPv4 text, so only a single unicast address qualifies here: `0.0.0.0` would mean every
 * interface (the open proxy this avoids), broadcast and multicast addresses mean none, and
 * `127.0.0.1` is served by the loopback listener already.
 */
export function lanListenAddress(settings: Settings): string | null {
  const ip = settings.lanIP.trim();
  if (!isIPv4(ip) || ip === LOOPBACK) return null;
  const first = Number(ip.split(".")[0]);
  if (first === 0 || first >= 224) return null;
  return ip;
}

/**
 * The listening part of the configuration: the mixed port and DNS on loopback, and on the
 * LAN address only when one is set, never on every interface.
 *
 * mihomo's `mixed-port` listener binds one address (`bind-address` with `allow-lan: true`,
 * else 127.0.0.1), so it stays on loopback (`allow-lan: false`; `bind-address` pinned too,
 * should anything switch `allow-lan` on through the controller) and the LAN address gets a
 * mixed listener of its own under `listeners:`. That entry must name its address: without
 * `listen` mihomo binds it to 0.0.0.0. `lan-allowed-ips` (checked by mihomo for the default
 * listener and for listeners without their own users, whatever `allow-lan` says) admits the
 * LAN network and loopback only; the default admits every address.
 */
function compileInbound(settings: Settings): Record<string, unknown> {
  const lan = lanListenAddress(settings);
  const cidr = lan && settings.lanCIDR ? normaliseCidr(settings.lanCIDR) : null;
  // A zero-length prefix (0.0.0.0/0, ::/0) would admit the whole internet again.
  const lanNet = cidr && !cidr.endsWith("/0") ? cidr : null;
  const inbound: Record<string, unknown> = {
    "mixed-port": settings.mixedPort,
    "allow-lan": false,
    "bind-address": LOOPBACK,
    "lan-allowed-ips": [...(lanNet ? [lanNet] : []), ...LOOPBACK_CIDRS],
  };
  if (lan) {
    inbound.listeners = [
      { name: LAN_LISTENER, type: "mixed", listen: lan, port: settings.mixedPort, udp: true },
    ];
  }
  return inbound;
}

/**
 * mihomo's DNS server listens on one address: the LAN address when one is set (the LAN's
 * clients are pointed at it), else loopback. The gateway itself does not depend on this
 * listener: requests through the mixed port hand host names to the core, which resolves
 * them with its own upstream servers; with TUN on, `dns-hijack` answers every port-53 query
 * routed through the TUN device (the gateway's included) whatever this address is; and the
 * gateway can still query its own LAN address directly.
 */
function dnsListen(settings: Settings): string {
  return `${lanListenAddress(settings) ?? LOOPBACK}:${settings.dnsPort}`;
}

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

const DEVICE_TARGET: Record<DeviceRule["policy"], string> = {
  direct: DIRECT,
  proxy: GROUP_PROXY,
  block: REJECT,
};

/**
 * A device's policy for one of its addresses. SRC-IP-CIDR matches the connection's source, the
 * device's own address, whatever DNS mode the core runs: with fake-ip the destination is a
 * made-up address, the source never is.
 */
function deviceRule(d: DeviceRule): string | null {
  const ip = d.ip.trim();
  if (!isIP(ip)) return null;
  return `SRC-IP-CIDR,${ip}/${ip.includes(":") ? 128 : 32},${DEVICE_TARGET[d.policy]}`;
}

/**
 * Rules in the spec's order: internal addresses (so a blocked device still reaches the
 * gateway's own pages), the devices' own policies, custom rules, mainland sets, everything else.
 */
export function compileRules(rules: RuleRecord[], devices: readonly DeviceRule[] = []): string[] {
  const out: string[] = [];
  for (const cidr of INTERNAL_CIDRS) {
    out.push(`${cidr.includes(":") ? "IP-CIDR6" : "IP-CIDR"},${cidr},${DIRECT},no-resolve`);
  }
  for (const suffix of INTERNAL_SUFFIXES) out.push(`DOMAIN-SUFFIX,${suffix},${DIRECT}`);
  for (const device of devices) {
    const line = deviceRule(device);
    if (line) out.push(line);
  }
  for (const rule of rules) {
    const line = customRule(rule);
    if (line) out.push(line);
  }
  out.push(`GEOSITE,cn,${DIRECT}`, `GEOIP,CN,${DIRECT},no-resolve`, `MATCH,${GROUP_PROXY}`);
  return out;
}

/**
 * A provider file's text: `{"proxies":[...]}`. JSON is YAML (flow style) to mihomo, and writes
 * ~100x faster than block YAML: a 10,000-node provider takes milliseconds instead of more
 * than a second. Kept per node list, so an apply writes out again only what changed (and the
 * same text object tells the core layer the file on disk is already this one).
 */
const providerTexts = new WeakMap<readonly MihomoProxy[], string>();

export function providerText(nodes: readonly MihomoProxy[]): string {
  let text = providerTexts.get(nodes);
  if (text === undefined) {
    text = `{"proxies":${nodesJson(nodes)}}\n`;
    providerTexts.set(nodes, text);
  }
  return text;
}

/** The last configuration written as YAML: most applies (a refresh) change only providers. */
let lastYaml: { key: string; yaml: string } | null = null;

function toYaml(config: Record<string, unknown>): string {
  const key = JSON.stringify(config);
  if (lastYaml?.key !== key) lastYaml = { key, yaml: stringify(config) };
  return lastYaml.yaml;
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
    providers.set(sub.id, providerText(sub.nodes));
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
    ...compileInbound(settings),
    mode: settings.proxyEnabled ? "rule" : "direct",
    "log-level": "info",
    ipv6: true,
    "external-controller": `127.0.0.1:${opts.controllerPort}`,
    // The core never fetches geodata itself: Gatehouse puts the files its rules read in the
    // core's home (geosite.dat; geoip.metadb, which geodata-mode off names) before a start.
    "geo-auto-update": false,
    "geodata-mode": false,
    secret: opts.secret,
    profile: { "store-selected": false, "store-fake-ip": false },
    dns: {
      enable: true,
      listen: dnsListen(settings),
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
  config.rules = compileRules(input.rules, input.devices);
  return { yaml: toYaml(config), providers };
}
