import { describe, expect, it } from "vitest";
import type { CoreProxy } from "../../server/proxy/context.js";
import {
  LiveDelays,
  liveColumns,
  type LiveColumns,
} from "../../server/proxy/domain/live-delays.js";

function node(name: string, delays: number[], udp?: boolean): CoreProxy {
  return { type: "Shadowsocks", name, udp, history: delays.map((delay) => ({ time: "t", delay })) };
}

/** A core whose /proxies answers are counted and can be held or made to fail. */
function fakeCore() {
  const core = {
    calls: 0,
    fail: false,
    proxies: { a: node("a", [40, 120.4], false), b: node("b", []) } as Record<string, CoreProxy>,
    release: null as (() => void) | null,
    hold: false,
    fetch: async (): Promise<LiveColumns> => {
      core.calls++;
      if (core.hold) await new Promise<void>((r) => (core.release = r));
      if (core.fail) throw new Error("connect ECONNREFUSED");
      return liveColumns(structuredClone(core.proxies));
    },
  };
  return core;
}

describe("LiveDelays", () => {
  it("maps the last history entry to a rounded delay and keeps udp", async () => {
    const core = fakeCore();
    const live = new LiveDelays({ fetch: core.fetch, now: () => 0 });
    const data = await live.get();
    expect(data?.get("a")).toEqual({ delay: 120, udp: false });
    expect(data?.get("b")).toEqual({ delay: null, udp: undefined });
  });

  it("serves a fresh copy without asking the core, a stale one while refreshing in the background", async () => {
    const core = fakeCore();
    let now = 0;
    const live = new LiveDelays({
      fetch: core.fetch,
      now: () => now,
      freshMs: 5000,
      staleMs: 60_000,
    });
    await live.get();
    now = 4999;
    await live.get();
    expect(core.calls).toBe(1);
    core.proxies.a = node("a", [300]);
    now = 5000;
    const stale = await live.get();
    expect(stale?.get("a")?.delay).toBe(120);
    expect(core.calls).toBe(2);
    await new Promise((r) => setTimeout(r, 0));
    expect((await live.get())?.get("a")?.delay).toBe(300);
    // Past the stale limit the caller waits for the core's answer.
    core.proxies.a = node("a", [7]);
    now = 5000 + 60_000;
    expect((await live.get())?.get("a")?.delay).toBe(7);
  });

  it("asks the core once for concurrent callers", async () => {
    const core = fakeCore();
    core.hold = true;
    const live = new LiveDelays({ fetch: core.fetch, now: () => 0 });
    const all = Promise.all([live.get(), live.get(), live.get()]);
    await new Promise((r) => setTimeout(r, 0));
    core.release?.();
    const [x, y, z] = await all;
    expect(core.calls).toBe(1);
    expect(x).toBe(y);
    expect(y).toBe(z);
  });

  it("answers null for an unreachable core and forgets what it had", async () => {
    const core = fakeCore();
    let now = 0;
    const live = new LiveDelays({ fetch: core.fetch, now: () => now, freshMs: 10 });
    await live.get();
    core.fail = true;
    now = 100_000;
    expect(await live.get()).toBeNull();
    core.fail = false;
    expect((await live.get())?.get("a")?.delay).toBe(120);
  });

  it("records test results at once, and clear() drops a fetch that was under way", async () => {
    const core = fakeCore();
    const live = new LiveDelays({ fetch: core.fetch, now: () => 0 });
    await live.get();
    live.record("a", 0);
    live.record("c", 55);
    const data = await live.get();
    expect(data?.get("a")?.delay).toBe(0);
    expect(data?.get("c")?.delay).toBe(55);
    expect(core.calls).toBe(1);
    live.clear();
    core.hold = true;
    const pending = live.get();
    live.clear();
    core.release?.();
    await pending;
    // The answer that began before clear() is not kept: the next read asks again.
    core.hold = false;
    await live.get();
    expect(core.calls).toBe(3);
  });
});
