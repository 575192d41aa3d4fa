import { type Router } from "express";
import { type NodeTestResults } from "../../contract/proxy.js";
import { coreNodeName, parseNodeId, providerName } from "../types.js";
import { coreApi } from "../core/index.js";
import { LiveDelays, liveColumns, type LiveColumns, type LiveView } from "../domain/live-delays.js";
import { NodeListBodies } from "../domain/node-list.js";
import type { ProxyRouterDeps } from "./router-deps.js";

const LIVE_DEADLINE_MS = 3000;
const TEST_BATCH = 8;
const TEST_GRACE_MS = 2000;

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

/** Node views, selection and latency tests. */
export function nodesRouter(deps: ProxyRouterDeps): Router {
  const router = deps.routes.router();

  const { nodes } = deps;
  const bodies = new NodeListBodies();
  const live = new LiveDelays({
    fetch: () => readLive(deps, LIVE_DEADLINE_MS),
    now: () => deps.clock.now(),
  });

  router.raw("GET /nodes", async (_req, res) => {
    const list = nodes.list();
    // The list is served without live data when the core cannot be reached. A stopped core's
    // cached data is dropped; the controller may still be up (systemd).
    let data: LiveView | null = null;
    if (!deps.core.running()) live.clear();
    if (list.nodes.length > 0) data = await live.get();
    const body = await bodies.get(list, data, nodes.chosen());
    res.set("Content-Type", "application/json; charset=utf-8").send(body);
  });

  router.endpoint("POST /nodes/select", async (input) => {
    await nodes.select(input.body);
    return { ok: true };
  });

  router.endpoint("POST /nodes/test", async (input) => {
    const { ids } = input.body;
    const { testURL, testTimeoutMS } = await nodes.testTarget(ids);
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
    return results;
  });

  return router;
}
