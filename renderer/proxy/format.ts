export {
  formatBytes,
  formatDate,
  formatDateTime,
  formatDuration,
  formatRate,
} from "../shared/format.js";

/** Latency class for colours: green < 200 ms, amber < 500, red >= 500 or failed, grey unknown. */
export function latencyClass(
  delay: number | null,
  failed: boolean,
): "good" | "fair" | "bad" | "unknown" {
  if (failed || delay === 0) return "bad";
  if (delay === null) return "unknown";
  if (delay < 200) return "good";
  if (delay < 500) return "fair";
  return "bad";
}
