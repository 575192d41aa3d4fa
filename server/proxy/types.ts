/**
 * Types shared across the proxy management service. The records as they travel (settings,
 * subscriptions, rules) are the wire contract's; the core layer (`core/`) compiles them into a
 * mihomo configuration.
 */

import type { Rule, Settings } from "../contract/proxy.js";

export type {
  RuleAction,
  RuleType,
  SelectionMode,
  Settings,
  SubscriptionRecord,
  SubscriptionUsage,
} from "../contract/proxy.js";
/** A stored custom rule. */
export type RuleRecord = Rule;

export const DEFAULT_SETTINGS: Settings = {
  proxyEnabled: true,
  tunEnabled: false,
  selectionMode: "auto",
  selectedNode: "",
  lanIP: "",
  lanCIDR: "",
  gateway: "",
  interface: "",
  mixedPort: 7890,
  dnsPort: 1053,
  testURL: "https://www.gstatic.com/generate_204",
  testTimeoutMS: 5000,
};

/** One proxy node as mihomo's `proxies:` list holds it (a plain YAML-able object). */
export type MihomoProxy = Record<string, unknown> & {
  name: string;
  type: string;
  server?: string;
  port?: number;
};

/** What the core layer needs to compile a configuration: the whole stored state. */
export interface CoreInput {
  settings: Settings;
  /** Enabled subscriptions only, each with the nodes of its current snapshot (possibly none). */
  subscriptions: Array<{ id: string; name: string; nodes: MihomoProxy[] }>;
  /** Custom rules in list order (disabled ones included; the compiler skips them). */
  rules: RuleRecord[];
  /** Each current address of a device with a policy of its own, with that policy. */
  devices?: DeviceRule[];
}

/** One address of a LAN device whose policy is not the default, as the compiler takes it. */
export interface DeviceRule {
  ip: string;
  policy: "direct" | "proxy" | "block";
}

/** Provider name compiled for a subscription; part of every node id. */
export function providerName(subscriptionId: string): string {
  return `sub-${subscriptionId}`;
}

/**
 * The name a node carries inside the core. Providers get `override.additional-prefix`
 * so two subscriptions' same-named nodes stay distinct in the core, which makes
 * selection exact.
 */
export function coreNodePrefix(subscriptionId: string): string {
  return `[${subscriptionId}] `;
}

export function coreNodeName(subscriptionId: string, nodeName: string): string {
  return coreNodePrefix(subscriptionId) + nodeName;
}

export function nodeId(subscriptionId: string, nodeName: string): string {
  return `${subscriptionId}/${providerName(subscriptionId)}/${nodeName}`;
}

/** Splits a node id into its parts; the node name may itself contain `/`. */
export function parseNodeId(
  id: string,
): { subscriptionId: string; provider: string; name: string } | null {
  const first = id.indexOf("/");
  if (first <= 0) return null;
  const second = id.indexOf("/", first + 1);
  if (second <= first + 1) return null;
  const name = id.slice(second + 1);
  if (!name) return null;
  return { subscriptionId: id.slice(0, first), provider: id.slice(first + 1, second), name };
}

/** Names of the groups the compiler creates. */
export const GROUP_PROXY = "PROXY"; // selector: the policy every proxied rule points at
export const GROUP_AUTO = "AUTO"; // url-test over every node

export function isoNow(ms: number): string {
  return new Date(ms).toISOString();
}
