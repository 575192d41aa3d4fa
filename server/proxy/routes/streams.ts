import { type Request, type Response, type Router } from "express";
import { parseOr400 } from "../../http/validate.js";
import { SseStream } from "../../http/sse.js";
import type { ProxyRouterDeps } from "./router-deps.js";
import {
  LOG_LEVELS,
  LogsQuerySchema,
  METRICS_INTERVAL_MS,
  type LogItem,
  type LogsEnded,
  type Metrics,
} from "../../contract/proxy.js";
import { coreApi, coreLogFeed, type CoreLogLine } from "../core/index.js";
import { coreProblem } from "../core/errors.js";
import type { CounterSample } from "../system/metrics.js";
import { MetricsPoller } from "../system/metrics-poller.js";
import { StreamSlots } from "../system/stream-slots.js";
import { isoNow } from "../types.js";

/** Stream intervals; tests shorten them (module-level so the service needs no wiring). */
export const streamTimings = {
  metricsIntervalMs: METRICS_INTERVAL_MS,
  heartbeatIntervalMs: 15_000,
  /** Core query deadline for metrics (spec: 3 seconds). */
  coreDeadlineMs: 3000,
  writeDeadlineMs: 10_000,
};

const LEVELS = LOG_LEVELS;

/** A line's level as a rank (unknown types count as info, as the core's own filter does). */
function rank(type: string): number {
  const i = (LEVELS as readonly string[]).indexOf(type.toLowerCase());
  return i < 0 ? 1 : i;
}

/** The kept line after the one a reconnecting browser saw last (`<epoch>.<seq>`), else 0. */
function seenUpTo(lastEventId: string | undefined, epoch: string): number {
  const m = /^([0-9a-f]+)\.(\d+)$/.exec(lastEventId ?? "");
  return m && m[1] === epoch ? Number(m[2]) : 0;
}

function sessionOf(res: Response): string {
  const id: unknown = res.locals.sessionId;
  return typeof id === "string" ? id : "";
}

type Timings = typeof streamTimings;
type Opener = (res: Response) => { stream: SseStream; sessionId: string };

/** Samples the core's counters for the metrics stream (null while the core cannot say). */
function counterPoller(deps: ProxyRouterDeps, timings: Timings): MetricsPoller {
  return new MetricsPoller({
    clock: deps.clock,
    intervalMs: () => timings.metricsIntervalMs,
    sample: async (): Promise<CounterSample | null> => {
      const client = coreApi(deps.core);
      if (!client) return null;
      try {
        const c = await client.counters(timings.coreDeadlineMs);
        return {
          upTotal: c.uploadTotal,
          downTotal: c.downloadTotal,
          connections: c.connections,
          at: deps.clock.now(),
        };
      } catch {
        return null;
      }
    },
  });
}

/** A stream of the caller's session, once it has a free slot (429 otherwise). */
function opener(slots: StreamSlots, timings: Timings): Opener {
  return (res) => {
    const sessionId = sessionOf(res);
    const release = slots.take(sessionId);
    const stream = new SseStream(res, timings.writeDeadlineMs);
    stream.onClose(release);
    return { stream, sessionId };
  };
}

/** GET /events: the metrics, until the session ends. */
function serveEvents(
  deps: ProxyRouterDeps,
  metrics: MetricsPoller,
  { stream, sessionId }: { stream: SseStream; sessionId: string },
): void {
  const unwatch = metrics.watch((m) => {
    if (!deps.sessionAlive(sessionId)) {
      stream.send("expired");
      stream.close();
      return;
    }
    stream.send("metrics", m satisfies Metrics);
  });
  stream.onClose(unwatch);
}

/** GET /logs: the kept lines the browser has not seen, then the live ones at its level. */
function serveLogs(
  deps: ProxyRouterDeps,
  timings: Timings,
  open: Opener,
  req: Request,
  res: Response,
): void {
  const { level } = parseOr400(LogsQuerySchema, req.query);
  const { stream, sessionId } = open(res);
  const abort = new AbortController();
  const heartbeat = setInterval(() => {
    if (!deps.sessionAlive(sessionId)) {
      stream.send("expired");
      stream.close();
    } else {
      stream.send("heartbeat");
    }
  }, timings.heartbeatIntervalMs);
  stream.onClose(() => {
    clearInterval(heartbeat);
    abort.abort();
  });
  const disconnected = (err: unknown) => {
    if (stream.isClosed) return;
    const problem =
      err === null
        ? { message: "The proxy core ended the log stream", code: "core.logs_ended" }
        : coreProblem(err, deps.options.controllerPort ?? 9090);
    // The port goes beside the code, so the page can name it in the reader's language.
    const params: Record<string, number> =
      problem.code === "core.port_in_use" ? { port: deps.options.controllerPort ?? 9090 } : {};
    stream.send("disconnected", {
      error: problem.message,
      code: problem.code,
      params,
    } satisfies LogsEnded);
    stream.close();
  };
  const feed = coreLogFeed(deps.core);
  const client = coreApi(deps.core);
  if (!feed || !client) {
    stream.send("disconnected", {
      error: "The proxy core is not connected",
      code: "core.unreachable",
    } satisfies LogsEnded);
    stream.close();
    return;
  }
  const min = rank(level);
  const send = (line: CoreLogLine) => {
    if (rank(line.type) >= min) {
      const { type, payload, time } = line;
      // Lines of a debug viewer's own stream are not kept, so they have no id to resume from.
      stream.send(
        "log",
        { type, payload, time } satisfies LogItem,
        line.seq ? `${feed.epoch}.${line.seq}` : undefined,
      );
    }
  };
  // The kept lines first (those a reconnecting browser has not seen), then the live ones:
  // both come from the one feed, in order, so no line is sent twice.
  const since = seenUpTo(req.get("last-event-id"), feed.epoch);
  for (const line of feed.recent()) if (line.seq > since) send(line);
  if (level !== "debug") {
    const unwatch = feed.watch({ line: send, ended: disconnected });
    stream.onClose(unwatch);
    return;
  }
  // The feed follows at info; debug lines come from a stream of this viewer's own, which
  // starts after the kept lines were sent (so none of them can arrive twice).
  client
    .logs(level, (item) => send({ ...feed.clean(item), seq: 0, time: isoNow(deps.clock.now()) }), {
      signal: abort.signal,
      connectTimeoutMs: timings.coreDeadlineMs,
    })
    .then(
      () => disconnected(null),
      (err: unknown) => disconnected(err),
    );
}

export function streamsRouter(deps: ProxyRouterDeps): Router {
  const timings = deps.tuning.streams ?? streamTimings;
  const router = deps.routes.router();
  const open = opener(new StreamSlots(), timings);
  // One reading of the core's counters per interval for every console watching.
  const metrics = counterPoller(deps, timings);

  router.raw("GET /events", (_req, res) => serveEvents(deps, metrics, open(res)));

  router.raw("GET /logs", (req, res) => serveLogs(deps, timings, open, req, res));

  return router;
}
