import type { Router } from "express";
import type { CoreControl, CoreManagerOptions, ProxyContext } from "../context.js";
import { createCoreManager } from "../core/index.js";
import { fetchSubscription, parseSubscription } from "../subscriptions/index.js";
import type { FeedSource } from "./refresher.js";

// TEMPORARY: the live routers are written in parallel; they are loaded here until they are
// committed, then imported statically in service.ts.

export async function loadCore(opts: CoreManagerOptions): Promise<CoreControl> {
  return createCoreManager(opts);
}

/** The subscription module's fetch and parse. */
export const feedSource: FeedSource = { fetch: fetchSubscription, parse: parseSubscription };

export async function liveRouters(ctx: ProxyContext): Promise<Router[]> {
  const out: Router[] = [];
  const loaders = [
    async () => (await import("./status.js")).statusRouter(ctx),
    async () => (await import("./system.js")).systemRouter(ctx),
    async () => (await import("./connections.js")).connectionsRouter(ctx),
    async () => (await import("./streams.js")).streamsRouter(ctx),
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
