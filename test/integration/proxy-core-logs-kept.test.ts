import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  asManager,
  freePort,
  openSse,
  startLive,
  waitFor,
  type LiveHarness,
  type SseEvent,
} from "./proxy-core-harness.js";

/** The shared fake mihomo executable (its controller is the mihomo simulator). */
const FAKE_CORE = resolve("test/fixtures/fake-core.mjs");

let h: LiveHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

interface Started {
  h: LiveHarness;
  port: number;
  secret: string;
  /** Makes the running core log one line (the simulator's test hook). */
  say(type: string, payload: string): Promise<void>;
  /** Whether the service has kept a line with this payload. */
  kept(payload: string): boolean;
}

async function startCore(): Promise<Started> {
  const port = await freePort();
  h = await startLive({ coreBin: FAKE_CORE, controllerPort: port });
  const r = await h.request("POST", "/system/service", { action: "start" });
  expect(r.status, r.text).toBe(200);
  const secret = readFileSync(join(h.dir, "core", "secret"), "utf8").trim();
  const live = h;
  // The service follows the core's log on its own once the core runs (nobody watches yet).
  const followers = async () => {
    const res = await fetch(`http://127.0.0.1:${port}/__sim/state`, {
      headers: { Authorization: `Bearer ${secret}` },
    });
    return ((await res.json()) as { logStreams: number }).logStreams;
  };
  for (let i = 0; (await followers()) < 1; i++) {
    if (i > 200) throw new Error("the service does not follow the core's log");
    await new Promise((r) => setTimeout(r, 10));
  }
  return {
    h: live,
    port,
    secret,
    async say(type, payload) {
      const res = await fetch(`http://127.0.0.1:${port}/__sim/logs`, {
        method: "POST",
        headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" },
        body: JSON.stringify({ type, payload }),
      });
      expect(res.ok).toBe(true);
    },
    kept: (payload) =>
      asManager(live.core)
        .logFeed.recent()
        .some((l) => l.payload === payload),
  };
}

function logPayloads(events: SseEvent[]): string[] {
  return events
    .filter((e) => e.event === "log")
    .map((e) => (JSON.parse(e.data) as { payload: string }).payload);
}

/** The raw `id:` lines of an SSE response (openSse keeps event and data only). */
async function readIds(url: string, headers: Record<string, string>, count: number) {
  const ctl = new AbortController();
  const res = await fetch(url, { headers, signal: ctl.signal });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  let text = "";
  const decoder = new TextDecoder();
  while ((text.match(/^event: log$/gm) ?? []).length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  ctl.abort();
  return text;
}

describe("the core's last log lines", () => {
  it("are kept while nobody watches, sent first when the log opens, then the live ones, each once", async () => {
    const c = await startCore();
    for (let i = 1; i <= 3; i++) await c.say(i === 2 ? "warning" : "info", `kept ${i}`);
    await waitFor(() => c.kept("kept 3"), 5000, "the lines to be kept");

    const sse = openSse(`${c.h.url}/api/v1/logs`);
    await waitFor(() => logPayloads(sse.events).includes("kept 3"), 5000, "the kept lines");
    await c.say("info", "live 1");
    await c.say("error", "live 2");
    await waitFor(() => logPayloads(sse.events).includes("live 2"), 5000, "the live lines");
    sse.close();

    const got = logPayloads(sse.events).filter((p) => /^(kept [1-3]|live \d)$/.test(p));
    expect(got).toEqual(["kept 1", "kept 2", "kept 3", "live 1", "live 2"]);
    // Exactly the service's lines in their order: none twice, none missing.
    const kept = asManager(c.h.core).logFeed.recent();
    expect(logPayloads(sse.events)).toEqual(kept.map((l) => l.payload));
    const first = JSON.parse(sse.events.find((e) => e.event === "log")?.data ?? "{}");
    expect(first.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("resumes after the last line a reconnecting browser saw, and filters kept lines by level", async () => {
    const c = await startCore();
    await c.say("info", "a");
    await c.say("warning", "b");
    await c.say("info", "c");
    await waitFor(() => c.kept("c"), 5000, "the lines to be kept");
    const text = await readIds(`${c.h.url}/api/v1/logs`, {}, 1);
    const kept = asManager(c.h.core).logFeed.recent();
    const b = kept.find((l) => l.payload === "b");
    const id = /^id: (\S+)$/m.exec(text)?.[1] ?? "";
    expect(id).toMatch(/^[0-9a-f]+\.\d+$/);

    const epoch = id.split(".")[0];
    const resumed = openSse(`${c.h.url}/api/v1/logs`, { "Last-Event-ID": `${epoch}.${b?.seq}` });
    await waitFor(() => logPayloads(resumed.events).includes("c"), 5000, "the line after b");
    resumed.close();
    expect(logPayloads(resumed.events)).toEqual(["c"]);

    const warnings = openSse(`${c.h.url}/api/v1/logs?level=warning`);
    await waitFor(() => logPayloads(warnings.events).includes("b"), 5000, "the warning");
    await c.say("error", "d");
    await waitFor(() => logPayloads(warnings.events).includes("d"), 5000, "the error");
    warnings.close();
    expect(logPayloads(warnings.events).filter((p) => /^[a-d]$/.test(p))).toEqual(["b", "d"]);
  });

  it("never keeps or sends the controller secret, and still shows the kept lines once the core has stopped", async () => {
    const c = await startCore();
    await c.say("info", "first");
    await c.say("info", `token was ${c.secret}`);
    await waitFor(() => c.kept("token was [redacted]"), 5000, "the redacted line");
    expect(JSON.stringify(asManager(c.h.core).logFeed.recent())).not.toContain(c.secret);

    expect((await c.h.request("POST", "/system/service", { action: "stop" })).status).toBe(200);
    const sse = openSse(`${c.h.url}/api/v1/logs`);
    await sse.ended;
    const payloads = logPayloads(sse.events);
    expect(payloads).toContain("token was [redacted]");
    expect(JSON.stringify(sse.events)).not.toContain(c.secret);
    // The kept lines, then why there is no live stream (the core is not running).
    const last = sse.events[sse.events.length - 1];
    expect(last.event).toBe("disconnected");
    expect(JSON.parse(last.data)).toMatchObject({ code: "core.unreachable" });
  });
});
