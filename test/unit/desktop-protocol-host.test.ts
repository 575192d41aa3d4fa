import { afterEach, describe, expect, it, vi } from "vitest";
import type { ForkFunction, HostChild } from "../../main/host/host-child.js";
import {
  ServiceHost,
  type HostStatus,
  type ServiceHostOptions,
} from "../../main/host/service-host.js";
import type { HostMessage, ServiceEvent } from "../../server/desktop/protocol.js";

/**
 * The service host's decisions against in-memory children: what it does with each message,
 * a silent start, a child that ignores stop, back-off and giving up.
 */

class FakeChild implements HostChild {
  readonly pid: number;
  readonly sent: HostMessage[] = [];
  killed = 0;
  private messageListeners: Array<(m: unknown) => void> = [];
  private exitListeners: Array<(c: number | null, s: string | null) => void> = [];
  private ended = false;

  constructor(
    pid: number,
    private readonly behaviour: { onStop?: "exit" | "ignore"; onKill?: "exit" | "ignore" },
  ) {
    this.pid = pid;
  }

  postMessage(message: HostMessage): void {
    this.sent.push(message);
    if (message.type === "stop" && this.behaviour.onStop !== "ignore")
      setTimeout(() => this.exit(0, null), 5);
  }
  onMessage(listener: (m: unknown) => void): void {
    this.messageListeners.push(listener);
  }
  onExit(listener: (c: number | null, s: string | null) => void): void {
    this.exitListeners.push(listener);
  }
  kill(): void {
    this.killed++;
    if (this.behaviour.onKill !== "ignore") setTimeout(() => this.exit(null, "SIGKILL"), 5);
  }
  say(message: unknown): void {
    for (const l of this.messageListeners) l(message);
  }
  exit(code: number | null, signal: string | null): void {
    if (this.ended) return;
    this.ended = true;
    for (const l of this.exitListeners) l(code, signal);
  }
}

const READY = {
  type: "ready",
  dataDir: "/data",
  parcel: {
    url: "http://127.0.0.1:8000",
    httpsUrl: null,
    entries: ["http://127.0.0.1:8000"],
    adminUser: "admin",
    generatedAdminPassword: "generated-pw-1",
  },
  proxy: null,
};

function setup(
  options: Partial<ServiceHostOptions> = {},
  behaviour: ConstructorParameters<typeof FakeChild>[1] = {},
) {
  const children: FakeChild[] = [];
  const forks: Array<readonly string[]> = [];
  const fork: ForkFunction = (_entry, args) => {
    forks.push(args);
    const child = new FakeChild(100 + children.length, behaviour);
    children.push(child);
    return child;
  };
  const lines: string[] = [];
  const host = new ServiceHost({
    fork,
    entry: "entry.js",
    args: ["--a"],
    dataDir: "/data",
    log: (l) => lines.push(l),
    ...options,
  });
  const statuses: HostStatus[] = [];
  const events: ServiceEvent[] = [];
  host.on("status", (s) => statuses.push(s));
  host.on("event", (e) => events.push(e));
  /** Polls `check` (advancing the clock by each interval when it is fake) until it holds. */
  const until = (check: () => boolean, ms = 3000): Promise<void> =>
    vi.waitFor(
      () => {
        if (!check()) throw new Error(`timed out: ${JSON.stringify(statuses)}`);
      },
      { timeout: ms, interval: 5 },
    );
  return { host, children, forks, lines, statuses, events, until };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("the service host's decisions", () => {
  it("ignores malformed messages without logging their values, then takes a valid ready", () => {
    const t = setup();
    t.host.start();
    const child = t.children[0];
    child.say("ready");
    child.say({ type: "ready" });
    child.say({ ...READY, parcel: { ...READY.parcel, url: "generated-pw-1" } });
    child.say({ type: "event", event: { kind: "parcel.burned", parcelId: "x", at: 1 } });
    expect(t.host.state.state).toBe("starting");
    expect(t.events).toEqual([]);
    expect(t.lines.filter((l) => l.includes("ignored a malformed message"))).toHaveLength(4);
    expect(t.lines.join("\n")).not.toContain("generated-pw-1");
    child.say(READY);
    expect(t.host.state).toMatchObject({ state: "ready", info: { dataDir: "/data" } });
    void t.host.stop();
  });

  it("forwards events and follows status messages in the public info", async () => {
    const t = setup();
    const infos: unknown[] = [];
    t.host.on("info", (i) => infos.push(i));
    t.host.start();
    t.children[0].say(READY);
    const event = { kind: "upload.finished", parcelId: "p1", files: ["a.txt"], at: 5 };
    t.children[0].say({ type: "event", event });
    expect(t.events).toEqual([event]);
    t.children[0].say({
      type: "status",
      entries: ["http://127.0.0.1:8000", "http://10.0.0.9:8000"],
      core: { installed: true, online: false, node: null },
    });
    expect(t.host.info).toMatchObject({
      state: "ready",
      parcel: { entries: ["http://127.0.0.1:8000", "http://10.0.0.9:8000"] },
      core: { installed: true, online: false, node: null },
      error: null,
    });
    expect(JSON.stringify(infos)).not.toContain("generated-pw-1");
    await t.host.stop();
  });

  it("sends entries given before ready once the services are ready, and after each restart", async () => {
    const t = setup({ backoffMs: 10 });
    t.host.start();
    expect(() => t.host.setEntries([])).toThrow();
    t.host.setEntries(["http://10.0.0.9:8000"]);
    expect(t.children[0].sent).toEqual([]);
    t.children[0].say(READY);
    expect(t.children[0].sent).toEqual([{ type: "entries", entries: ["http://10.0.0.9:8000"] }]);
    t.children[0].exit(null, "SIGKILL");
    await t.until(() => t.children.length === 2);
    t.children[1].say(READY);
    expect(t.children[1].sent).toEqual([{ type: "entries", entries: ["http://10.0.0.9:8000"] }]);
    // New arguments (a settings change) say which entries apply: the kept ones are dropped.
    await t.host.restart(["--b"]);
    expect(t.forks.at(-1)).toEqual(["--b"]);
    t.children.at(-1)!.say(READY);
    expect(t.children.at(-1)!.sent).toEqual([]);
    await t.host.stop();
  });

  it("kills a start that never says ready, restarts it, and gives up saying why", async () => {
    const t = setup({ readyTimeoutMs: 40, backoffMs: 10, maxRestarts: 2 });
    t.host.start();
    await t.until(() => t.host.state.state === "failed");
    expect(t.children.map((c) => c.killed)).toEqual([1, 1, 1]);
    expect(t.statuses.map((s) => s.state)).toEqual([
      "starting",
      "restarting",
      "starting",
      "restarting",
      "starting",
      "failed",
    ]);
    expect(t.statuses.filter((s) => s.state === "restarting")).toMatchObject([
      { attempt: 1, delayMs: 10, reason: "The services did not finish starting in time." },
      { attempt: 2, delayMs: 20 },
    ]);
    expect(t.host.state).toMatchObject({ state: "failed", code: "ready_timeout" });
  });

  it("does not restart services that reported a start error, and says their sentence", async () => {
    vi.useFakeTimers();
    const t = setup({ backoffMs: 10 });
    t.host.start();
    t.children[0].say({ type: "error", code: "port_in_use", message: "Port 8000 is taken." });
    t.children[0].exit(2, null);
    // Ten back-off periods pass on the fake clock: no restart was scheduled.
    await vi.advanceTimersByTimeAsync(100);
    expect(t.children).toHaveLength(1);
    expect(t.host.state).toEqual({
      state: "failed",
      code: "port_in_use",
      message: "Port 8000 is taken.",
    });
    expect(t.host.info).toMatchObject({ error: "Port 8000 is taken.", errorCode: "port_in_use" });
    // A start by hand (after the operator changed the port) tries again.
    t.host.start();
    expect(t.children).toHaveLength(2);
    vi.useRealTimers();
    await t.host.stop();
  });

  it("starts the back-off again after a healthy run", async () => {
    vi.useFakeTimers();
    const t = setup({ backoffMs: 10, healthyAfterMs: 60 });
    t.host.start();
    t.children[0].say(READY);
    t.children[0].exit(1, null);
    await t.until(() => t.children.length === 2);
    t.children[1].say(READY);
    t.children[1].exit(1, null);
    await t.until(() => t.children.length === 3);
    t.children[2].say(READY);
    // The third run lasts past healthyAfterMs on the fake clock.
    await vi.advanceTimersByTimeAsync(60);
    t.children[2].exit(1, null);
    const delays = t.statuses.flatMap((s) => (s.state === "restarting" ? [s.delayMs] : []));
    expect(delays).toEqual([10, 20, 10]);
    vi.useRealTimers();
    await t.host.stop();
  });

  it("restarts when the fork itself fails", async () => {
    let calls = 0;
    const lines: string[] = [];
    const host = new ServiceHost({
      fork: () => {
        calls++;
        throw new Error("spawn ENOENT");
      },
      entry: "x",
      args: [],
      dataDir: "/d",
      backoffMs: 5,
      maxRestarts: 2,
      log: (l) => lines.push(l),
    });
    host.start();
    await vi.waitFor(() => expect(host.state.state).toBe("failed"), { interval: 5 });
    expect(calls).toBe(3);
    expect(host.state).toMatchObject({ state: "failed", code: "crashed" });
    expect(lines.join("\n")).toContain("spawn ENOENT");
  });

  it("stops within 2 s with the default limits when the services ignore stop", async () => {
    // On a fake clock: the limits are the host's timers, and a busy machine fires real timers
    // late (a wall-clock bound here failed under load, not in the host).
    vi.useFakeTimers();
    const t = setup({}, { onStop: "ignore" });
    t.host.start();
    t.children[0].say(READY);
    let stopped = false;
    void t.host.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(1499);
    expect(t.children[0].sent).toEqual([{ type: "stop" }]);
    expect(t.children[0].killed).toBe(0);
    expect(stopped).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.children[0].killed).toBe(1);
    await vi.advanceTimersByTimeAsync(499);
    expect(stopped).toBe(true);
    expect(t.host.state).toEqual({ state: "stopped" });
  });

  it("resolves stop within 2 s even when a kill does not end the process, and ignores its late exit", async () => {
    vi.useFakeTimers();
    const t = setup({}, { onStop: "ignore", onKill: "ignore" });
    t.host.start();
    t.children[0].say(READY);
    let stopped = false;
    const [a, b] = [t.host.stop(), t.host.stop()];
    expect(a).toBe(b);
    void a.then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(1999);
    expect(stopped).toBe(true);
    expect(t.children[0].killed).toBe(1);
    // Whatever the late exit might schedule runs on the fake clock, run out far past any back-off.
    t.children[0].exit(null, "SIGKILL");
    await vi.advanceTimersByTimeAsync(60_000);
    expect(t.host.state).toEqual({ state: "stopped" });
    expect(t.children).toHaveLength(1);
  });

  it("cancels a scheduled restart on stop", async () => {
    vi.useFakeTimers();
    const t = setup({ backoffMs: 50 });
    t.host.start();
    t.children[0].exit(1, null);
    expect(t.host.state.state).toBe("restarting");
    await t.host.stop();
    // Ten back-off periods pass on the fake clock: the restart never comes.
    await vi.advanceTimersByTimeAsync(500);
    expect(t.children).toHaveLength(1);
    expect(t.host.state).toEqual({ state: "stopped" });
  });
});
