/**
 * Durations by name. The API speaks seconds (expiry times are unix seconds, policy limits are
 * days), timers and clocks in the code speak milliseconds: a `_S` constant is a number of
 * seconds, a `_MS` constant a number of milliseconds. Here in the contract folder because the
 * services, the desktop shell and the pages all use them; no imports, so any of them can.
 */

export const SECOND_MS = 1000;
export const MINUTE_S = 60;
export const MINUTE_MS = MINUTE_S * SECOND_MS;
export const HOUR_S = 60 * MINUTE_S;
export const HOUR_MS = HOUR_S * SECOND_MS;
export const DAY_S = 24 * HOUR_S;
export const DAY_MS = DAY_S * SECOND_MS;
export const WEEK_S = 7 * DAY_S;
