import { fetchSubscription } from "../subscriptions/fetch.js";
import { ParsePool } from "../subscriptions/parse-pool.js";
import type { FeedSource } from "./refresher.js";

/**
 * The subscription module's fetch, and its parse run in worker threads: a hostile document
 * costs a worker its 10 s budget, never the event loop both services answer on. One pool per
 * process: its idle workers stop by themselves and never keep the process alive.
 */
const parsePool = new ParsePool();

export const feedSource: FeedSource = {
  fetch: fetchSubscription,
  parse: (body) => parsePool.parse(body),
};
