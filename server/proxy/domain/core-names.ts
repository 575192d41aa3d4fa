import type { ChainLabel } from "../../contract/proxy.js";
import type { CoreProxy } from "../context.js";
import type { CoreConnection, CoreConnections } from "../core/core-shapes.js";
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
 * A chain step as people read it. Each distinct step is worked out once per answer: twenty
 * thousand connections go through a few hundred nodes and groups.
 */
function labeller(
  subscriptions: ReadonlyArray<{ id: string; name: string }>,
): (step: string) => ChainLabel {
  const names = new Map(subscriptions.map((s) => [s.id, s.name]));
  const known = new Map<string, ChainLabel>();
  return (step) => {
    let label = known.get(step);
    if (!label) {
      const m = CORE_NAME.exec(step);
      label =
        !m || !step.startsWith(coreNodePrefix(m[1]))
          ? { name: step, subscription: null }
          : { name: m[2], subscription: names.get(m[1]) ?? null };
      known.set(step, label);
    }
    return label;
  };
}

function labelsOf(c: CoreConnection, label: (step: string) => ChainLabel): ChainLabel[] {
  return Array.isArray(c.chains) ? c.chains.map((step) => label(String(step))) : [];
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
  const label = labeller(subscriptions);
  return {
    ...view,
    connections: view.connections.map((c) => ({ ...c, chainLabels: labelsOf(c, label) })),
  };
}

/**
 * `labelChains` on an answer nobody else holds (the core reader's own): the labels are
 * written into it instead of into copies of twenty thousand connections. Its JSON is the
 * same, key for key: a label added to an object goes last, as in the copy.
 */
export function labelChainsInPlace(
  view: CoreConnections,
  subscriptions: ReadonlyArray<{ id: string; name: string }>,
): CoreConnections {
  const label = labeller(subscriptions);
  for (const c of view.connections) c.chainLabels = labelsOf(c, label);
  return view;
}
