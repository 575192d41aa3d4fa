import { type Router } from "express";
import { HttpError } from "../../http/errors.js";
import { jsonObject, parseOr400 } from "../../http/validate.js";
import { NodeSelect, NodeTest, type NodeTestResults, type Ok } from "../../contract/proxy.js";
import { coreNodeName, parseNodeId, providerName } from "../types.js";
import { coreApi } from "../core/index.js";
import { LiveDelays, liveColumns, type LiveColumns, type LiveView } from "../domain/live-delays.js";
import { NodeListBodies, nodeLister } from "../domain/node-list.js";
import type { ProxyRouterDeps } from "./router-deps.js";

const LIVE_DEADLINE_MS = 3000;
const TEST_BATCH = 8;
const TEST_GRACE_MS = 2000;
/** How long the core may take to say it is there before a latency test. */
const CORE_PROBE_MS = 2000;

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error("Timeout")), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/**
 * The core's live node data: read and condensed in the core reader's thread when the core
 * layer has the full client, else (a stand-in core) from its `proxies()`.
 */
async function readLive(deps: ProxyRouterDeps, timeoutMs: number): Promise<LiveColumns> {
  const api = coreApi(deps.core);
  if (api) return api.liveColumns(timeoutMs);
  return liveColumns(await deps.core.client.proxies(timeoutMs));
}

/**
 * Latency tests go through the core: without one that answers, every node would come back
 * "failed", blaming the nodes. A stopped core is said as such (503), before any test runs.
 */
async function coreAnswers(deps: ProxyRouterDeps): Promise<void> {
  try {
    await deps.core.client.version(CORE_PROBE_MS);
  } catch (err) {
    if (!deps.core.running())
      throw new HttpError(
        503,
        "node.test_needs_core",
        "Start the proxy core first: latency tests go through it, and it is not running",
        { cause: err },
      );
    throw new HttpError(
      503,
      "core.unreachable",
      "The proxy core is not running or cannot be reached",
      { cause: err },
    );
  }
}

/** Node views, selection and latency tests. */
export function nodesRouter(deps: ProxyRouterDeps): Router {
  const router = deps.routes.router();

  const listNodes = nodeLister(deps.repos);
  const bodies = new NodeListBodies();
  const live = new LiveDelays({
    fetch: () => readLive(deps, LIVE_DEADLINE_MS),
    now: () => deps.clock.now(),
  });

  router.get("/nodes", async (_req, res) => {
    const list = listNodes();
    // The list is served without live data when the core cannot be reached. A stopped core's
    // cached data is dropped; the controller may still be up (systemd).
    let data: LiveView | null = null;
    if (!deps.core.running()) live.clear();
    if (list.nodes.length > 0) data = await live.get();
    const settings = deps.repos.getSettings();
    const chosen = settings.selectionMode === "manual" ? settings.selectedNode : null;
    const body = await bodies.get(list, data, chosen);
    res.set("Content-Type", "application/json; charset=utf-8").send(body);
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
    await coreAnswers(deps);
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
