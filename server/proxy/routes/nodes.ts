import { type Router } from "express";
import { HttpError } from "../../http/errors.js";
import { jsonObject, parseOr400 } from "../../http/validate.js";
import { NodeSelect, NodeTest, type NodeTestResults, type Ok } from "../../contract/proxy.js";
import { coreNodeName, nodeId, parseNodeId, providerName } from "../types.js";
import { LiveDelays, type LiveNode } from "../domain/live-delays.js";
import type { ProxyRouterDeps } from "./router-deps.js";

const LIVE_DEADLINE_MS = 3000;
const TEST_BATCH = 8;
const TEST_GRACE_MS = 2000;

/** One node of an enabled subscription as the list shows it, minus the live fields. */
interface NodeRef {
  id: string;
  /** The node's name inside the core (`[<subscription>] <name>`). */
  coreName: string;
  udp: boolean;
  /** `{"id":…,"name":…,"subscriptionID":…,"subscriptionName":…,"type":…,` of its JSON. */
  head: string;
}

interface NodeList {
  key: string;
  snapshots: unknown[];
  nodes: NodeRef[];
  ids: Set<string>;
}

/**
 * Nodes of enabled subscriptions (credentials and server addresses left out). Built again
 * only when a subscription is added, renamed, switched or refreshed (its snapshot array
 * changes), so `GET /nodes` with tens of thousands of nodes only adds the live fields.
 */
function nodeLister(deps: ProxyRouterDeps): () => NodeList {
  let last: NodeList | null = null;
  return () => {
    const subs = deps.repos.subscriptions.list().filter((s) => s.enabled);
    const snapshots = subs.map((s) => deps.repos.nodes(s.id));
    const key = JSON.stringify(subs.map((s) => [s.id, s.name]));
    if (last && last.key === key && last.snapshots.every((a, i) => a === snapshots[i])) return last;
    const nodes: NodeRef[] = [];
    subs.forEach((sub, i) => {
      for (const node of snapshots[i]) {
        const id = nodeId(sub.id, node.name);
        const head = JSON.stringify({
          id,
          name: node.name,
          subscriptionID: sub.id,
          subscriptionName: sub.name,
          type: String(node.type),
        });
        nodes.push({
          id,
          coreName: coreNodeName(sub.id, node.name),
          udp: node.udp === true,
          head: `${head.slice(0, -1)},`,
        });
      }
    });
    last = { key, snapshots, nodes, ids: new Set(nodes.map((n) => n.id)) };
    return last;
  };
}

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error("Timeout")), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** Node views, selection and latency tests. */
export function nodesRouter(deps: ProxyRouterDeps): Router {
  const router = deps.routes.router();

  const listNodes = nodeLister(deps);
  const live = new LiveDelays({ fetch: () => deps.core.client.proxies(LIVE_DEADLINE_MS) });

  router.get("/nodes", async (_req, res) => {
    const { nodes } = listNodes();
    // The list is served without live data when the core cannot be reached. A stopped core's
    // cached data is dropped; the controller may still be up (systemd).
    let data: Map<string, LiveNode> | null = null;
    if (!deps.core.running()) live.clear();
    if (nodes.length > 0) data = await live.get();
    const settings = deps.repos.getSettings();
    const chosen = settings.selectionMode === "manual" ? settings.selectedNode : null;
    // Assembled from each node's prepared JSON head: no per-request objects for every node.
    const parts = nodes.map((n) => {
      const p = data?.get(n.coreName);
      const delay = p ? p.delay : null;
      const alive = delay === null ? null : delay > 0;
      return `${n.head}"udp":${p?.udp ?? n.udp},"delay":${delay},"alive":${alive},"selected":${chosen === n.id}}`;
    });
    res.type("application/json").send(`[${parts.join(",")}]`);
  });

  router.post("/nodes/select", async (req, res) => {
    const body = parseOr400(NodeSelect, jsonObject(req.body));
    const settings = deps.repos.getSettings();
    if (body.mode === "manual") {
      if (!listNodes().ids.has(body.id)) {
        throw new HttpError(
          400,
          "node.unavailable",
          "Unknown node, or its subscription is disabled",
        );
      }
      deps.repos.saveSettings({ ...settings, selectionMode: "manual", selectedNode: body.id });
    } else {
      deps.repos.saveSettings({ ...settings, selectionMode: "auto" });
    }
    try {
      await deps.core.applySelection(deps.repos.coreInput());
    } catch (err) {
      // A core that is not running gets the selection on its next start.
      if (deps.core.running()) {
        const message = err instanceof Error ? err.message : String(err);
        throw new HttpError(
          400,
          "node.select_refused",
          `The selection was saved but the core refused it: ${message}`,
          { params: { detail: message }, cause: err },
        );
      }
      deps.log(`selection staged for the next core start (${String(err)})`);
    }
    res.json({ ok: true } satisfies Ok);
  });

  router.post("/nodes/test", async (req, res) => {
    const { ids } = parseOr400(NodeTest, jsonObject(req.body));
    const known = listNodes().ids;
    const unknown = ids.find((id) => !known.has(id));
    if (unknown !== undefined) {
      throw new HttpError(400, "node.unknown", `Unknown node: ${unknown}`, {
        params: { node: unknown },
      });
    }
    const { testURL, testTimeoutMS } = deps.repos.getSettings();
    const unique = [...new Set(ids)];
    const results: NodeTestResults = {};
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < unique.length) {
        const id = unique[next++];
        const ref = parseNodeId(id);
        if (!ref) continue;
        try {
          const delay = await withDeadline(
            deps.core.client.healthcheck(
              providerName(ref.subscriptionId),
              coreNodeName(ref.subscriptionId, ref.name),
              testURL,
              testTimeoutMS,
            ),
            testTimeoutMS + TEST_GRACE_MS,
          );
          results[id] = { delay: Math.max(0, Math.round(delay)), error: "" };
          live.record(coreNodeName(ref.subscriptionId, ref.name), results[id].delay);
        } catch (err) {
          const message = err instanceof Error && err.message ? err.message : "Test failed";
          results[id] = { delay: 0, error: message };
          live.record(coreNodeName(ref.subscriptionId, ref.name), 0);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(TEST_BATCH, unique.length) }, worker));
    res.json(results);
  });

  return router;
}
