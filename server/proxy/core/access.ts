import type { CoreControl } from "../context.js";
import { CoreLogFeed } from "./log-feed.js";
import type { CoreApi } from "./mihomo-client.js";

/** The full client of a core layer, or null when it is a stand-in without one. */
export function coreApi(core: CoreControl): CoreApi | null {
  const c = core.client as Partial<CoreApi>;
  return typeof c.connections === "function" && typeof c.logs === "function"
    ? (core.client as CoreApi)
    : null;
}

const borrowedFeeds = new WeakMap<CoreControl, CoreLogFeed>();

/**
 * The core's shared log feed. A core layer without one of its own (a test's wrapper) gets one
 * that follows only while someone watches; null when there is no controller client at all.
 */
export function coreLogFeed(core: CoreControl): CoreLogFeed | null {
  const own = (core as { logFeed?: unknown }).logFeed;
  if (own instanceof CoreLogFeed) return own;
  const api = coreApi(core);
  if (!api) return null;
  let feed = borrowedFeeds.get(core);
  if (!feed) {
    feed = new CoreLogFeed((onItem, opts) => api.logs("info", onItem, opts));
    borrowedFeeds.set(core, feed);
  }
  return feed;
}
