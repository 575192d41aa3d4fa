import type { Router } from "express";
import type { CoreControl, CoreManagerOptions, ProxyContext } from "../context.js";
import { createCoreManager } from "../core/index.js";
import { fetchSubscription } from "../subscriptions/index.js";
import { ParsePool } from "../subscriptions/parse-pool.js";
import type { FeedSource } from "./refresher.js";

// TEMPORARY: the live routers are written in parallel; they are loaded here until they are
// committed, then imported statically in service.ts.

export async function loadCore(opts: CoreManagerOptions): Promise<CoreControl> {
  return createCoreManager(opts);
}

/**
 * The subscription module's fetch, and its parse run in worker threads: a hostile document
 * costs a worker its 10 s budget, never the event loop both services answer on.
 */
const parsePool = new ParsePool();
export const feedSource: FeedSource = {
  fetch: fetchSubscription,
  parse: (body) => parsePool.parse(body),
};

export async function liveRouters(ctx: ProxyContext): Promise<Router[]> {
  const out: Router[] = [];
  const loaders = [
    async () => (await import("./status.js")).statusRouter(ctx),
    async () => (await import("./system.js")).systemRouter(ctx),
    async () => (await import("./connections.js")).connectionsRouter(ctx),
    async () => (await import("./streams.js")).streamsRouter(ctx),
    async () => (await import("./geodata.js")).geodataRouter(ctx),
  ];
  for (const load of loaders) {
    try {
      out.push(await load());
    } catch (err) {
      if ((err as { code?: string }).code !== "ERR_MODULE_NOT_FOUND") throw err;
    }
  }
  return out;
}
