import { DEFAULT_STATUS, type StatusTable } from "../domain-errors.js";

/**
 * How the proxy's API answers each kind of domain error, decided here once. An id it does not
 * know (a subscription, a rule, a node) is a bad request: 400, where the parcel service says 404.
 */
export const PROXY_STATUS: StatusTable = { ...DEFAULT_STATUS, not_found: 400 };
