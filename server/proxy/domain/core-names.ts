import type { ChainLabel } from "../../contract/proxy.js";
import type { CoreProxy } from "../context.js";
import type { CoreConnections } from "../core/mihomo-client.js";
import { coreNodePrefix, GROUP_PROXY, nodeId } from "../types.js";

/** Inside the core a node is named `[<subscription id>] <name>`. */
const CORE_NAME = /^\[([0-9a-f]{24})\] ([\s\S]+)$/;

/** Maps a core proxy name back to our node id form; other names (REJECT, DIRECT) stay. */
export function nodeIdFromCoreName(name: string): string {
  const m = CORE_NAME.exec(name);
  return m ? nodeId(m[1], m[2]) : name;
}

/** PROXY -> (AUTO's choice when PROXY points at AUTO) -> the node actually used. */
export function actualNodeOf(proxies: Record<string, CoreProxy>): string {
  let name = proxies[GROUP_PROXY]?.now ?? "";
  // Follow groups (AUTO) to the node they chose, a bounded number of steps.
  for (let i = 0; i < 4 && name; i++) {
    const p = proxies[name];
    if (!p || typeof p.now !== "string" || !p.now || name === p.now) break;
    name = p.now;
  }
  return name ? nodeIdFromCoreName(name) : "";
}

/**
 * Inside the core a node is named `[<subscription id>] <name>`; the console shows the
 * subscription's name instead of its id, so each connection gets `chainLabels` beside the
 * core's own `chains`.
 */
export function labelChains(
  view: CoreConnections,
  subscriptions: ReadonlyArray<{ id: string; name: string }>,
): CoreConnections {
  const names = new Map(subscriptions.map((s) => [s.id, s.name]));
  const label = (step: string): ChainLabel => {
    const m = CORE_NAME.exec(step);
    if (!m || !step.startsWith(coreNodePrefix(m[1]))) return { name: step, subscription: null };
    return { name: m[2], subscription: names.get(m[1]) ?? null };
  };
  return {
    ...view,
    connections: view.connections.map((c) => ({
      ...c,
      chainLabels: Array.isArray(c.chains) ? c.chains.map((step) => label(String(step))) : [],
    })),
  };
}
