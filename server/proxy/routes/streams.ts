import { type Response, type Router } from "express";
import { z } from "zod";
import { parseOr400 } from "../../http/validate.js";
import { SseStream } from "../../http/sse.js";
import type { ProxyContext } from "../context.js";
import { coreApi } from "../core/index.js";
import { errorMessage } from "../core/errors.js";
import { metricsFrom, type CounterSample } from "../system/metrics.js";
import { isoNow } from "../types.js";

/** Stream intervals; tests shorten them (module-level so the service needs no wiring). */
export const streamTimings = {
  metricsIntervalMs: 2000,
  heartbeatIntervalMs: 15_000,
  /** Core query deadline for metrics (spec: 3 seconds). */
  coreDeadlineMs: 3000,
  writeDeadlineMs: 10_000,
};

const logsQuery = z.object({
  level: z.enum(["debug", "info", "warning", "error", "silent"]).default("info"),
});

function sessionOf(res: Response): string {
  const id: unknown = res.locals.sessionId;
  return typeof id === "string" ? id : "";
}

export function streamsRouter(ctx: ProxyContext, timings = streamTimings): Router {
  const router = ctx.routes.router();

  router.get("/events", (_req, res) => {
    const sessionId = sessionOf(res);
    const stream = new SseStream(res, timings.writeDeadlineMs);
    let prev: CounterSample | null = null;
    let timer: NodeJS.Timeout | null = null;
    stream.onClose(() => {
      if (timer) clearTimeout(timer);
    });

    const sample = async (): Promise<CounterSample | null> => {
      const client = coreApi(ctx.core);
      if (!client) return null;
      try {
        const c = await client.connections(timings.coreDeadlineMs);
        return {
          upTotal: c.uploadTotal,
          downTotal: c.downloadTotal,
          connections: c.connections.length,
          at: ctx.clock.now(),
        };
      } catch {
        return null;
      }
    };

    const tick = async (): Promise<void> => {
      if (stream.isClosed) return;
      if (!ctx.sessionAlive(sessionId)) {
        stream.send("expired");
        stream.close();
        return;
      }
      const startedAt = Date.now();
      const cur = await sample();
      if (stream.isClosed) return;
      const metrics = metricsFrom(prev, cur);
      // After a failure the next success starts over (its rates are 0).
      prev = cur;
      stream.send("metrics", { ...metrics, time: isoNow(ctx.clock.now()) });
      const wait = Math.max(0, timings.metricsIntervalMs - (Date.now() - startedAt));
      timer = setTimeout(() => void tick(), wait);
    };
    void tick();
  });

  router.get("/logs", (req, res) => {
    const { level } = parseOr400(logsQuery, req.query);
    const sessionId = sessionOf(res);
    const stream = new SseStream(res, timings.writeDeadlineMs);
    const abort = new AbortController();
    const heartbeat = setInterval(() => {
      if (!ctx.sessionAlive(sessionId)) {
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
    const disconnected = (error: string) => {
      if (stream.isClosed) return;
      stream.send("disconnected", { error });
      stream.close();
    };
    const client = coreApi(ctx.core);
    if (!client) {
      disconnected("The proxy core is not connected");
      return;
    }
    client
      .logs(level, (item) => stream.send("log", item), {
        signal: abort.signal,
        connectTimeoutMs: timings.coreDeadlineMs,
      })
      .then(
        () => disconnected("The proxy core ended the log stream"),
        (err: unknown) => disconnected(errorMessage(err)),
      );
  });

  return router;
}
