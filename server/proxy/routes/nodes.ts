import express, { type Router } from "express";
import { z } from "zod";
import { HttpError } from "../../http/errors.js";
import { jsonObject, parseOr400 } from "../../http/validate.js";
import type { ProxyContext } from "../context.js";
import { coreNodeName, nodeId, parseNodeId, providerName } from "../types.js";
import type { ServiceDeps } from "./deps.js";
import { LiveDelays, type LiveNode } from "./live-delays.js";

const LIVE_DEADLINE_MS = 3000;
const TEST_BATCH = 8;
const TEST_GRACE_MS = 2000;

const selectBody = z.discriminatedUnion(
  "mode",
  [
    z.object({ mode: z.literal("auto") }),
    z.object({ mode: z.literal("manual"), id: z.string("must be a node id") }),
  ],
  "mode must be manual or auto",
);
const testBody = z.object({
  ids: z
    .array(z.string("must be a node id"), "must be an array of node ids")
    .min(1, "must name at least one node")
    .max(500, "must name at most 500 nodes"),
});

interface NodeRef {
  id: string;
  name: string;
  subscriptionID: string;
  subscriptionName: string;
  type: string;
  udp: boolean;
}

/** Nodes of enabled subscriptions (credentials and server addresses left out). */
function listNodes(deps: ServiceDeps): NodeRef[] {
  const out: NodeRef[] = [];
  for (const sub of deps.store.subscriptions.list()) {
    if (!sub.enabled) continue;
    for (const node of deps.store.nodes(sub.id)) {
      out.push({
        id: nodeId(sub.id, node.name),
        name: node.name,
        subscriptionID: sub.id,
        subscriptionName: sub.name,
        type: String(node.type),
        udp: node.udp === true,
      });
    }
  }
  return out;
}

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error("Timeout")), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** Node views, selection and latency tests. */
export function nodesRouter(ctx: ProxyContext, deps: ServiceDeps): Router {
  const router = express.Router();

  const live = new LiveDelays({ fetch: () => ctx.core.client.proxies(LIVE_DEADLINE_MS) });

  router.get("/nodes", async (_req, res) => {
    const nodes = listNodes(deps);
    // The list is served without live data when the core is not running or cannot be reached.
    let data: Map<string, LiveNode> | null = null;
    // A stopped core's cached data is dropped; the controller may still be up (systemd).
    if (!ctx.core.running()) live.clear();
    if (nodes.length > 0) data = await live.get();
    const settings = deps.store.getSettings();
    const chosen = settings.selectionMode === "manual" ? settings.selectedNode : null;
    res.json(
      nodes.map((n) => {
        const p = data?.get(coreNodeName(n.subscriptionID, n.name));
        const delay = p ? p.delay : null;
        return {
          ...n,
          udp: p?.udp ?? n.udp,
          delay,
          alive: delay === null ? null : delay > 0,
          selected: chosen === n.id,
        };
      }),
    );
  });

  router.post("/nodes/select", async (req, res) => {
    const body = parseOr400(selectBody, jsonObject(req.body));
    const settings = deps.store.getSettings();
    if (body.mode === "manual") {
      if (!listNodes(deps).some((n) => n.id === body.id)) {
        throw new HttpError(400, "Unknown node, or its subscription is disabled");
      }
      deps.store.saveSettings({ ...settings, selectionMode: "manual", selectedNode: body.id });
    } else {
      deps.store.saveSettings({ ...settings, selectionMode: "auto" });
    }
    try {
      await ctx.core.applySelection(deps.store.coreInput());
    } catch (err) {
      // A core that is not running gets the selection on its next start.
      if (ctx.core.running()) {
        const message = err instanceof Error ? err.message : String(err);
        throw new HttpError(400, `The selection was saved but the core refused it: ${message}`, {
          cause: err,
        });
      }
      ctx.log(`selection staged for the next core start (${String(err)})`);
    }
    res.json({ ok: true });
  });

  router.post("/nodes/test", async (req, res) => {
    const { ids } = parseOr400(testBody, jsonObject(req.body));
    const known = new Set(listNodes(deps).map((n) => n.id));
    const unknown = ids.find((id) => !known.has(id));
    if (unknown !== undefined) throw new HttpError(400, `Unknown node: ${unknown}`);
    const { testURL, testTimeoutMS } = deps.store.getSettings();
    const unique = [...new Set(ids)];
    const results: Record<string, { delay: number; error: string }> = {};
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < unique.length) {
        const id = unique[next++];
        const ref = parseNodeId(id);
        if (!ref) continue;
        try {
          const delay = await withDeadline(
            ctx.core.client.healthcheck(
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
