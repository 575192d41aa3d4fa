import http from "node:http";
import { agentFor, call, Recorder } from "./load-client.js";

/**
 * The signed-in proxy consoles of the load benchmark: each holds `GET /api/v1/events` (live
 * metrics, every 2 s) and `GET /api/v1/logs` (the core's log lines) open for the whole run, as
 * an open dashboard and log page do. A feeder makes the core emit numbered log lines so the
 * delay from the core to every console can be measured. A stream that ends, fails or reports
 * `disconnected`/`expired` while the run is on is a disconnect (an error); the console then
 * reconnects after a second, as the browser's EventSource does.
 */

/** Marks the feeder's log lines; the number after it is when the line was sent (ms). */
export const MARK = "load-bench t=";

export interface Consoles {
  /** Time to the answer's headers of every stream opened (the start, and any reconnect). */
  opened: Recorder;
  /** The streams: one success per stream still open at the end, one error per disconnect. */
  held: Recorder;
  /** Delivery delay of each feeder line, core -> console (since `measure()`). */
  logLines(): Recorder;
  /** Gap between two metrics events of one stream (since `measure()`). */
  metrics(): Recorder;
  feeder: Recorder;
  /** Events received per event name (since `measure()`). */
  events(): Record<string, number>;
  disconnects(): number;
  reconnects(): number;
  /** Starts the measured phase: event figures from here on. */
  measure(): void;
  /** Resolves once every stream has its answer's headers (or has failed to get them). */
  ready: Promise<void>;
  /** Closes every stream and stops the feeder; resolves once all sockets are gone. */
  stop(): Promise<void>;
}

export function openConsoles(opts: {
  proxyUrl: string;
  cookies: string[];
  coreUrl: string;
  coreSecret: string;
  logsPerSecond: number;
}): Consoles {
  const opened = new Recorder("console: open a stream (to headers), before the others start");
  const held = new Recorder("console: streams held open (errors: disconnects)", false);
  const newLogLines = () => new Recorder("console: log line, core -> console");
  const newMetrics = () => new Recorder("console: metrics event (gap between two)");
  let logLines = newLogLines();
  let metrics = newMetrics();
  const feeder = new Recorder("(core log feeder, not the service)");
  let events: Record<string, number> = {};
  const agent = new http.Agent({ keepAlive: false, maxSockets: opts.cookies.length * 2 + 1 });
  const live = new Set<http.ClientRequest>();
  let stopped = false;
  let disconnects = 0;
  let reconnects = 0;
  let pending = opts.cookies.length * 2;
  let allOpen = (): void => undefined;
  const ready = new Promise<void>((resolve) => (allOpen = resolve));
  const settled = (): void => {
    if (--pending === 0) allOpen();
  };

  const open = (path: string, cookie: string, again: boolean): void => {
    if (stopped) return;
    if (again) reconnects++;
    const start = performance.now();
    let lastMetrics = 0;
    let ended = false;
    let answered = again;
    const answer = (): void => {
      if (answered) return;
      answered = true;
      settled();
    };
    const lost = (reason: string): void => {
      answer();
      if (ended) return;
      ended = true;
      live.delete(req);
      if (stopped) return;
      disconnects++;
      held.fail(reason);
      setTimeout(() => open(path, cookie, true), 1000).unref();
    };
    const req = http.request(`${opts.proxyUrl}/api/v1${path}`, {
      headers: { cookie, accept: "text/event-stream" },
      agent,
    });
    live.add(req);
    req.on("error", (err: NodeJS.ErrnoException) => lost(`${path}: ${err.code ?? err.message}`));
    req.on("response", (res) => {
      res.on("error", () => lost(`${path}: response error`));
      if (res.statusCode !== 200) {
        res.resume();
        res.on("end", () => lost(`${path}: HTTP ${res.statusCode}`));
        return;
      }
      opened.ok(performance.now() - start, 0);
      answer();
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
        let cut: number;
        while ((cut = text.indexOf("\n\n")) >= 0) {
          const block = text.slice(0, cut);
          text = text.slice(cut + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
          const data = /^data: (.*)$/m.exec(block)?.[1] ?? "";
          events[event] = (events[event] ?? 0) + 1;
          const size = block.length + 2;
          if (event === "log") {
            const at = data.indexOf(MARK);
            if (at >= 0) logLines.ok(Date.now() - parseInt(data.slice(at + MARK.length), 10), size);
          } else if (event === "metrics") {
            const now = performance.now();
            if (lastMetrics > 0) metrics.ok(now - lastMetrics, size);
            lastMetrics = now;
          } else if (event === "disconnected" || event === "expired") {
            lost(`${path}: event ${event} ${data.slice(0, 80)}`);
          }
        }
      });
      res.on("close", () => lost(`${path}: stream ended`));
    });
    req.end();
  };

  opts.cookies.forEach((cookie) => {
    open("/events", cookie, false);
    open("/logs?level=info", cookie, false);
  });

  // One numbered line at a time; a slow answer delays the next instead of piling up.
  const feedAgent = agentFor(1);
  let seq = 0;
  let feeding: Promise<void> = Promise.resolve();
  const timer = setInterval(
    () => {
      feeding = feeding.then(async () => {
        if (stopped) return;
        const body = JSON.stringify({ type: "info", payload: `seq=${seq++} ${MARK}${Date.now()}` });
        try {
          const a = await call(`${opts.coreUrl}/__sim/logs`, {
            method: "POST",
            headers: {
              authorization: `Bearer ${opts.coreSecret}`,
              "content-type": "application/json",
            },
            body,
            agent: feedAgent,
          });
          feeder.answer(a);
        } catch (err) {
          feeder.socketError(err);
        }
      });
    },
    Math.max(10, Math.round(1000 / opts.logsPerSecond)),
  );

  return {
    opened,
    held,
    logLines: () => logLines,
    metrics: () => metrics,
    feeder,
    events: () => events,
    disconnects: () => disconnects,
    reconnects: () => reconnects,
    ready,
    measure() {
      logLines = newLogLines();
      metrics = newMetrics();
      events = {};
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await feeding;
      for (const req of live) {
        held.ok(0, 0);
        req.destroy();
      }
      live.clear();
      agent.destroy();
      feedAgent.destroy();
    },
  };
}
