import type { Metrics as MetricsEvent } from "../../contract/proxy-system.js";

/** One reading of the core's cumulative counters. */
export interface CounterSample {
  upTotal: number;
  downTotal: number;
  connections: number;
  /** ms since epoch when it was taken */
  at: number;
}

/** One reading of the rates; the stream adds the time it is sent. */
export type Metrics = Omit<MetricsEvent, "time">;

function rate(cur: number, prev: number, seconds: number): number {
  if (seconds <= 0) return 0;
  // Totals drop when the core restarts; a rate is never negative.
  return Math.max(0, Math.round((cur - prev) / seconds));
}

/**
 * Metrics from the previous and current samples: rates are the totals' difference over
 * the elapsed seconds, 0 on the first sample and whenever the query failed (`cur` null).
 */
export function metricsFrom(prev: CounterSample | null, cur: CounterSample | null): Metrics {
  if (!cur) {
    return { up: 0, down: 0, upTotal: 0, downTotal: 0, connections: 0, coreOnline: false };
  }
  const seconds = prev ? (cur.at - prev.at) / 1000 : 0;
  return {
    up: prev ? rate(cur.upTotal, prev.upTotal, seconds) : 0,
    down: prev ? rate(cur.downTotal, prev.downTotal, seconds) : 0,
    upTotal: cur.upTotal,
    downTotal: cur.downTotal,
    connections: cur.connections,
    coreOnline: true,
  };
}
