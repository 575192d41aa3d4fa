export { SubscriptionError } from "./errors.js";
export {
  fetchSubscription,
  DEFAULT_USER_AGENT,
  type FetchOptions,
  type FetchedSubscription,
} from "./fetch.js";
export { parseSubscription, type ParsedSubscription, type FeedFormat } from "./parse.js";
export { parseUserinfo, parseUpdateInterval, parseContentDisposition } from "./userinfo.js";
export { ParsePool, PARSE_BUDGET_MS, type ParsePoolOptions } from "./parse-pool.js";
