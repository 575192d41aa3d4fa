import http from "node:http";
import net from "node:net";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SSE_MAX_BUFFERED } from "../../server/http/sse.js";
import { STREAMS_PER_SESSION } from "../../server/proxy/system/stream-slots.js";
import {
  openSse,
  startLive,
  waitFor,
  type LiveHarness,
  type LiveOptions,
} from "./proxy-core-harness.js";
import { StubController } from "./proxy-core-stub.js";

/**
 * The console's live streams cost the core one reading per interval however many are open,
 * a session holds at most eight of them, and a stream whose reader stops reading is dropped
 * before the service queues more than a little for it.
 */

let h: LiveHarness | null = null;
let stub: StubController | null = null;
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await h?.close();
  await stub?.stop();
  h = null;
  stub = null;
});

async function withStub(timings: LiveOptions["timings"] = {}) {
  stub = new StubController();
  const port = await stub.start();
  h = await startLive({ controllerPort: port, timings });
  stub.secret = readFileSync(join(h.dir, "core", "secret"), "utf8").trim();
  return { h, stub };
}

/** A stream that is opened and then never read; answers its status line. */
function stalled(port: number, path: string, session: string): Promise<string> {
  const socket = net.connect(port, "127.0.0.1");
  sockets.push(socket);
  socket.write(`GET /api/v1${path} HTTP/1.1\r\nHost: x\r\nx-test-session: ${session}\r\n\r\n`);
  return new Promise((ok) => {
    socket.once("data", (chunk: Buffer) => {
      socket.pause();
      ok(chunk.toString("latin1").split("\r\n")[0]);
    });
    socket.once("error", () => ok("error"));
  });
}

describe("GET /events, many at once", () => {
  it("asks the core once per interval however many streams watch", async () => {
    const { h, stub } = await withStub({ metricsIntervalMs: 100, heartbeatIntervalMs: 100 });
    for (const s of ["s2", "s3"]) h.alive.add(s);
    const streams = ["s1", "s1", "s1", "s2", "s2", "s3"].map((s) =>
      openSse(`${h.url}/api/v1/events`, { "x-test-session": s }),
    );
    await waitFor(() => streams.every((s) => s.events.length >= 3), 10_000, "metrics for all");
    // The service's own clock is the yardstick, not the test's: a logs stream sends a
    // heartbeat every metrics interval, and over five of them one shared poller asks the core
    // about five times (six streams polling on their own would ask thirty).
    const logs = openSse(`${h.url}/api/v1/logs`, { "x-test-session": "s1" });
    const beats = () => logs.events.filter((e) => e.event === "heartbeat").length;
    await waitFor(() => beats() >= 1, 10_000, "a heartbeat");
    const reads0 = stub.connectionReads;
    await waitFor(() => beats() >= 6, 10_000, "five more heartbeats");
    const reads = stub.connectionReads - reads0;
    expect(reads).toBeLessThanOrEqual(5 + 2);
    expect(reads).toBeGreaterThan(0);
    // Every stream got the same readings.
    const last = streams.map((s) => s.events.at(-1)?.event);
    expect(new Set(last)).toEqual(new Set(["metrics"]));
    for (const s of streams) s.close();
    // Nobody watches: no more readings. Two heartbeats let the service see the closes (and a
    // reading under way finish); over the next four a poller still running would ask four times.
    const closedAt = beats();
    await waitFor(() => beats() >= closedAt + 2, 10_000, "two heartbeats");
    const after = stub.connectionReads;
    await waitFor(() => beats() >= closedAt + 6, 10_000, "four more heartbeats");
    expect(stub.connectionReads).toBe(after);
    logs.close();
  });
});

describe("live streams of one session", () => {
  it(`are at most ${STREAMS_PER_SESSION}: the next is 429 stream.limit, others' sessions are not counted, a closed one frees its slot`, async () => {
    const { h } = await withStub({ metricsIntervalMs: 1000 });
    h.alive.add("s2");
    const open = Array.from({ length: STREAMS_PER_SESSION }, (_, i) =>
      openSse(`${h.url}/api/v1/${i % 2 ? "logs" : "events"}`, { "x-test-session": "s1" }),
    );
    await waitFor(() => open.every((s) => s.status === 200), 5000, "eight streams");
    const ninth = await fetch(`${h.url}/api/v1/events`, { headers: { "x-test-session": "s1" } });
    expect(ninth.status).toBe(429);
    expect(ninth.headers.get("retry-after")).toBe("5");
    const body = (await ninth.json()) as { code: string; error: string; params: { max: number } };
    expect(body.code).toBe("stream.limit");
    expect(body.params).toEqual({ max: STREAMS_PER_SESSION });
    expect(body.error).toMatch(/already has 8 live streams open; close another window or tab/);
    const other = openSse(`${h.url}/api/v1/events`, { "x-test-session": "s2" });
    await waitFor(() => other.status === 200, 5000, "another session's stream");
    open[0].close();
    let again: ReturnType<typeof openSse> | null = null;
    await expect
      .poll(
        async () => {
          again?.close();
          again = openSse(`${h.url}/api/v1/events`, { "x-test-session": "s1" });
          await waitFor(() => again!.status !== 0, 5000, "an answer");
          return again.status;
        },
        { timeout: 5000 },
      )
      .toBe(200);
    for (const s of [...open, other, again!]) s?.close();
  });
});

describe("a stream whose reader stops reading", () => {
  it("is dropped before the service queues more than a little for it, and frees its slot", async () => {
    const { h, stub } = await withStub();
    // Every response the service writes, to watch how much waits in each.
    const responses: http.ServerResponse[] = [];
    h.server.on("request", (_req, res: http.ServerResponse) => responses.push(res));
    let most = 0;
    const watch = setInterval(() => {
      for (const r of responses) most = Math.max(most, r.writableLength);
    }, 1);
    try {
      const statuses = await Promise.all(
        Array.from({ length: STREAMS_PER_SESSION }, () => stalled(h.port, "/logs", "s1")),
      );
      expect(statuses.every((s) => s.includes(" 200 "))).toBe(true);
      await waitFor(() => stub.logListeners === 1, 5000, "the core's log stream");
      // Log lines of 4 KiB until every stalled stream has been dropped (its socket's buffers
      // hold a few MB first).
      const line = "x".repeat(4096);
      const start = Date.now();
      const logStreams = () =>
        responses.filter(
          (r) =>
            String(r.getHeader("content-type")).startsWith("text/event-stream") && !r.destroyed,
        ).length;
      while (logStreams() > 0) {
        if (Date.now() - start > 30_000) throw new Error("the stalled streams were never dropped");
        for (let i = 0; i < 64; i++) stub.pushLog("info", line);
        await new Promise((r) => setTimeout(r, 5));
      }
      expect(most).toBeLessThan(SSE_MAX_BUFFERED + 16 * 1024);
      // Their slots are free: the session can open a stream again.
      const next = openSse(`${h.url}/api/v1/events`, { "x-test-session": "s1" });
      await waitFor(() => next.status !== 0, 5000, "an answer");
      expect(next.status).toBe(200);
      next.close();
    } finally {
      clearInterval(watch);
    }
  });
});
