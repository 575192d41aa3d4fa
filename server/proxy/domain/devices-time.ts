import { DAY_MS, HOUR_MS } from "../../contract/time-units.js";

/**
 * The buckets traffic is kept in: hours since the epoch (UTC, the same everywhere) and days of
 * the gateway's own calendar (what "today" means to the person who runs it), as the number of
 * days since 1970-01-01 of the local date.
 */

/** How long traffic is kept. */
export const KEEP_DAYS = 90;

export function hourOf(ms: number): number {
  return Math.floor(ms / HOUR_MS);
}

/** The local date of `ms` as days since 1970-01-01. */
export function localDayOf(ms: number): number {
  const d = new Date(ms);
  return Math.floor(Date.UTC(d.getFullYear(), d.getMonth(), d.getDate()) / DAY_MS);
}

/** When local day `day` starts (its local midnight), in ms since the epoch. */
export function localDayStart(day: number): number {
  const d = new Date(day * DAY_MS);
  return new Date(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()).getTime();
}
