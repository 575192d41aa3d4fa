import type { Router } from "express";
import type { CoreControl, CoreManagerOptions, ProxyContext } from "../context.js";
import type { FeedSource } from "./refresher.js";

// TEMPORARY: the core layer, the subscription module and the live routers are written in
// parallel; they are loaded here until they are committed, then imported statically.

export async function loadCore(opts: CoreManagerOptions): Promise<CoreControl> {
  const mod = await import("../core/index.js");
  return mod.createCoreManager(opts);
}

/** Loaded on the first refresh (parse always follows a fetch, so it is loaded by then). */
export function lazyFeedSource(): FeedSource {
  let mod: typeof import("../subscriptions/index.js") | null = null;
  return {
    async fetch(url, options) {
      mod ??= await import("../subscriptions/index.js");
      return mod.fetchSubscription(url, options);
    },
    parse(body) {
      if (!mod) throw new Error("the subscription module is not loaded");
      return mod.parseSubscription(body);
    },
  };
}

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
