export {
  formatBytes,
  formatDate,
  formatDateTime,
  formatDuration,
  formatRate,
} from "../../shared/format.js";

/** How a measured delay reads: fast, medium, slow, failed or not measured yet. */
export type LatencyClass = "good" | "medium" | "slow" | "failed" | "unknown";

/** Bounds of the classes (ms): under 200 fast, under 500 medium, from 500 slow. */
export const LATENCY_FAST_MS = 200;
export const LATENCY_SLOW_MS = 500;

export function latencyClass(delay: number | null, failed: boolean): LatencyClass {
  if (failed || delay === 0) return "failed";
  if (delay === null) return "unknown";
  if (delay < LATENCY_FAST_MS) return "good";
  if (delay < LATENCY_SLOW_MS) return "medium";
  return "slow";
}
