import { allMet, tableRow, verdict } from "./bench-table.js";
import { mib, printTable } from "./lib.js";
import type { LoadResult, Measure, ServiceStats } from "./load-protocol.js";
import { MARK } from "./load-sse.js";
import { loadTargets, type HashTimes } from "./load-targets.js";

/** The load benchmark's printed report: tables, error reasons and the PASS/FAIL line. */

const FEEDER = "(core log feeder";

/** A JSON log entry at info level or below (pino writes levels as names or numbers). */
function routine(line: string): boolean {
  try {
    const level = (JSON.parse(line) as { level?: unknown }).level;
    return (
      ["info", "debug", "trace"].includes(String(level)) ||
      (typeof level === "number" && level <= 30)
    );
  } catch {
    return false;
  }
}

const ms = (v: number | null): string => (v === null ? "-" : v.toFixed(1));

function row(m: Measure, seconds: number): Record<string, string | number> {
  return {
    "request / event": m.name,
    count: m.count,
    "per s": (m.count / seconds).toFixed(1),
    "MB/s": ((m.bytes / seconds) * 1e-6).toFixed(2),
    "p50 ms": ms(m.p50),
    "p99 ms": ms(m.p99),
    errors: m.errors,
  };
}

/** Prints everything; answers whether the run passed (no request to the services failed). */
export function printReport(input: {
  result: LoadResult;
  health: { start: Measure; load: Measure };
  stats: ServiceStats | null;
  memory: { idle: number; peak: number; sampled: number; peakReset: boolean };
  /** CPU seconds the service used during the load; the machine's 1-minute load at start/end. */
  cpu: { service: number; load: [number, number] };
  serviceLog: string[];
  hashes: HashTimes;
}): boolean {
  const { result, health, stats, memory } = input;
  const seconds = result.elapsed;
  const start = [...result.start, health.start];
  printTable(
    "Start: every client begins at the same moment (time of its first cycle, connecting included)",
    start.map((m) => ({
      "request / cycle": m.name,
      count: m.count,
      "p50 ms": ms(m.p50),
      "p99 ms": ms(m.p99),
      errors: m.errors,
    })),
  );
  const service = [...result.measures.filter((m) => !m.name.startsWith(FEEDER)), health.load];
  const feeder = result.measures.filter((m) => m.name.startsWith(FEEDER));
  printTable(
    `Load for ${seconds.toFixed(1)} s once every client is connected (MB = 10^6 bytes; console rows count events)`,
    [...service, ...feeder].map((m) => row(m, seconds)),
  );
  const eventList = Object.entries(result.events)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  printTable("Service process and run", [
    {
      measure: memory.peakReset ? "peak RSS during the load" : "peak RSS since start",
      value: `${mib(memory.peak)} MiB`,
    },
    { measure: "RSS before the load", value: `${mib(memory.idle)} MiB` },
    { measure: "largest RSS sampled every 250 ms", value: `${mib(memory.sampled)} MiB` },
    {
      measure: "event-loop delay in the service p50 / p99 / max",
      value: stats
        ? `${stats.loopP50Ms.toFixed(1)} / ${stats.loopP99Ms.toFixed(1)} / ${stats.loopMaxMs.toFixed(0)} ms`
        : "not reported",
    },
    {
      measure: "CPU used by the service / by the load process during the load",
      value: `${((input.cpu.service / seconds) * 100).toFixed(0)}% / ${((result.cpuSeconds / seconds) * 100).toFixed(0)}% of one core`,
    },
    {
      measure: "machine load average (1 min) at start / end",
      value: `${input.cpu.load[0].toFixed(2)} / ${input.cpu.load[1].toFixed(2)}`,
    },
    {
      measure: "completed cycles: pickup (resolve + download) / upload (4 requests)",
      value: `${result.cycles.pickup} / ${result.cycles.upload}`,
    },
    { measure: "downloads hashed and matching the published file", value: result.verified },
    { measure: "console events received", value: eventList || "none" },
    {
      measure: "console stream disconnects / reconnects",
      value: `${result.disconnects} / ${result.reconnects}`,
    },
  ]);

  const errors = [...start, ...service].reduce((n, m) => n + m.errors, 0);
  const reasons = [...start, ...service, ...feeder].flatMap((m) =>
    Object.entries(m.reasons).map(([reason, n]) => `  ${m.name}: ${reason} x ${n}`),
  );
  if (reasons.length > 0) console.log(`\nErrors by reason:\n${reasons.join("\n")}`);
  const retried = [...start, ...service].filter((m) => m.retried > 0);
  if (retried.length > 0)
    console.log(
      `\nSent again on a new connection (the server had closed the kept-alive one as the request left; browsers and curl do the same; not errors, the time counts from the first try):\n${retried.map((m) => `  ${m.name}: ${m.retried}`).join("\n")}`,
    );
  // Request entries and the core's echo of the feeder's lines are expected; the rest is shown.
  const notable = input.serviceLog.filter((line) => !line.includes(MARK) && !routine(line));
  console.log(
    `\nService log during the run: ${input.serviceLog.length} lines, ${notable.length} above info level or not JSON${notable.length > 0 ? " (last 15):" : ""}`,
  );
  for (const line of notable.slice(-15)) console.log(`  ${line.slice(0, 400)}`);
  const targets = loadTargets({ measures: result.measures, errors, hashes: input.hashes });
  printTable("Targets", targets.map(tableRow));
  const idle = result.cycles.pickup === 0 || result.cycles.upload === 0;
  const met = allMet(targets);
  const pass = errors === 0 && !idle && met;
  // Name what failed first: a run that missed only a latency target is not a run with errors.
  const missed = targets.filter((m) => verdict(m) === "NO").map((m) => m.measure);
  const why = [
    ...(missed.length > 0 ? [`missed: ${missed.join("; ")}`] : []),
    ...(idle ? ["a workload completed no cycle"] : []),
  ];
  console.log(
    `\n${pass ? "PASS" : "FAIL"}${why.length > 0 ? ` (${why.join("; ")})` : ""}: errors = ${errors} (target 0; every non-2xx answer, socket error, short or wrong body and stream disconnect counts)`,
  );
  return pass;
}
