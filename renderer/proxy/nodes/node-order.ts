import type { NodeTestResults, NodeView } from "../../../server/contract/proxy.js";

export type NodeSort = "list" | "name" | "latency";
export const NODE_SORTS: readonly NodeSort[] = ["list", "name", "latency"];

/** What the console knows of a node's delay right now: this page's test, else the core's. */
export interface NodeDelay {
  delay: number | null;
  failed: boolean;
  error: string;
}

export function delayOf(
  node: NodeView,
  results: NodeTestResults,
  pending: ReadonlySet<string>,
): NodeDelay {
  // A node being tested shows no old figure: the new one is on its way.
  if (pending.has(node.id)) return { delay: null, failed: false, error: "" };
  const r = results[node.id];
  if (r) return { delay: r.delay, failed: r.error !== "" || r.delay <= 0, error: r.error };
  return { delay: node.delay, failed: node.alive === false, error: "" };
}

/** Fastest first, then failed ones, then the ones not measured; ties by name. */
function latencyRank(d: NodeDelay): number {
  if (d.failed) return Number.MAX_SAFE_INTEGER - 1;
  if (d.delay === null) return Number.MAX_SAFE_INTEGER;
  return d.delay;
}

const byName = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

/** The nodes of one group in the chosen order (the list order is the subscription's). */
export function sortNodes(
  nodes: readonly NodeView[],
  sort: NodeSort,
  results: NodeTestResults,
  pending: ReadonlySet<string>,
): NodeView[] {
  if (sort === "list") return [...nodes];
  if (sort === "name") return [...nodes].sort((a, b) => byName.compare(a.name, b.name));
  const rank = new Map(nodes.map((n) => [n.id, latencyRank(delayOf(n, results, pending))]));
  return [...nodes].sort(
    (a, b) => (rank.get(a.id) ?? 0) - (rank.get(b.id) ?? 0) || byName.compare(a.name, b.name),
  );
}
