import { describe, expect, it } from "vitest";
import type { DetectedInterface } from "../../main/entries/detect.js";
import type { EntryConfig, EntryState } from "../../main/entries/entries.js";
import {
  followEntries,
  watchInterfaces,
  type InterfaceChange,
  type Timer,
} from "../../main/entries/watch.js";

/** A timer the test ticks by hand: no waiting, no wall clock. */
class ManualTimer implements Timer {
  callbacks = new Map<number, () => void>();
  intervals: number[] = [];
  private next = 1;
  setInterval(fn: () => void, ms: number): unknown {
    const id = this.next++;
    this.callbacks.set(id, fn);
    this.intervals.push(ms);
    return id;
  }
  clearInterval(handle: unknown): void {
    this.callbacks.delete(handle as number);
  }
  tick(): void {
    for (const fn of [...this.callbacks.values()]) fn();
  }
}

const eth = (address: string): DetectedInterface => ({ name: "eth0", address, virtual: false });
const wlan = (address: string): DetectedInterface => ({ name: "wlan0", address, virtual: false });

/** The interface table as the test sets it between ticks. */
function source(initial: DetectedInterface[]) {
  let now = initial;
  return {
    poll: () => now,
    set: (next: DetectedInterface[]) => {
      now = next;
    },
  };
}

describe("watchInterfaces", () => {
  it("polls at the interval and emits only when the set really changed", () => {
    const timer = new ManualTimer();
    const table = source([eth("192.168.1.9"), wlan("10.0.0.7")]);
    const watcher = watchInterfaces(table.poll, 3000, timer);
    const changes: InterfaceChange[] = [];
    watcher.on("change", (c: InterfaceChange) => changes.push(c));
    expect(timer.intervals).toEqual([3000]);

    timer.tick();
    // Same addresses in another order (and a fresh array) are no change.
    table.set([wlan("10.0.0.7"), eth("192.168.1.9")]);
    timer.tick();
    expect(changes).toEqual([]);

    // A new DHCP lease: the old address goes, a new one comes.
    table.set([eth("192.168.1.23"), wlan("10.0.0.7")]);
    timer.tick();
    expect(changes).toEqual([
      {
        detected: [eth("192.168.1.23"), wlan("10.0.0.7")],
        added: [eth("192.168.1.23")],
        removed: [eth("192.168.1.9")],
      },
    ]);
    timer.tick();
    expect(changes).toHaveLength(1);
    expect(watcher.current).toEqual([eth("192.168.1.23"), wlan("10.0.0.7")]);
  });

  it("keeps the last set and warns when the table cannot be read", () => {
    const timer = new ManualTimer();
    let fail = false;
    const watcher = watchInterfaces(
      () => {
        if (fail) throw new Error("uv_interface_addresses failed");
        return [eth("10.0.0.7")];
      },
      1000,
      timer,
    );
    const warnings: Error[] = [];
    watcher.on("warning", (e: Error) => warnings.push(e));
    fail = true;
    expect(watcher.check()).toBe(false);
    expect(warnings.map((w) => w.message)).toEqual(["uv_interface_addresses failed"]);
    expect(watcher.current).toEqual([eth("10.0.0.7")]);
  });

  it("stops polling when stopped", () => {
    const timer = new ManualTimer();
    const watcher = watchInterfaces(() => [], 1000, timer);
    watcher.stop();
    expect(timer.callbacks.size).toBe(0);
  });
});

describe("followEntries", () => {
  const ports = { parcel: 8000, https: 8443 };

  it("gives the new entries after a DHCP lease change, and nothing when only a bridge came up", () => {
    const timer = new ManualTimer();
    const table = source([eth("192.168.1.9")]);
    const watcher = watchInterfaces(table.poll, 1000, timer);
    const states: EntryState[] = [];
    const config: EntryConfig = { chosen: "all", ports, https: false, host: "0.0.0.0" };
    const follower = followEntries(
      watcher,
      () => config,
      (s) => states.push(s),
    );
    expect(follower.state().urls).toContain("http://192.168.1.9:8000");

    table.set([eth("192.168.1.23")]);
    timer.tick();
    expect(states.map((s) => s.urls)).toEqual([
      ["http://127.0.0.1:8000", "http://localhost:8000", "http://192.168.1.23:8000"],
    ]);

    // docker0 appearing changes the interfaces, not the entries of "all detected".
    table.set([eth("192.168.1.23"), { name: "docker0", address: "172.17.0.1", virtual: true }]);
    timer.tick();
    expect(states).toHaveLength(1);
  });

  it("reports a chosen address while it is gone and brings it back when it returns", () => {
    const timer = new ManualTimer();
    const table = source([eth("192.168.1.9"), wlan("10.0.0.7")]);
    const watcher = watchInterfaces(table.poll, 1000, timer);
    const states: EntryState[] = [];
    const config: EntryConfig = { chosen: ["10.0.0.7"], ports, https: false, host: "0.0.0.0" };
    followEntries(
      watcher,
      () => config,
      (s) => states.push(s),
    );

    table.set([eth("192.168.1.9")]);
    timer.tick();
    table.set([eth("192.168.1.9"), wlan("10.0.0.7")]);
    timer.tick();
    expect(states.map((s) => ({ lan: s.lan.map((l) => l.address), missing: s.missing }))).toEqual([
      { lan: [], missing: ["10.0.0.7"] },
      { lan: ["10.0.0.7"], missing: [] },
    ]);
  });

  it("follows a new DHCP lease on an interface chosen by name, with nothing reported missing", () => {
    const timer = new ManualTimer();
    const table = source([eth("192.168.1.9"), wlan("10.0.0.7")]);
    const watcher = watchInterfaces(table.poll, 1000, timer);
    const states: EntryState[] = [];
    const config: EntryConfig = { chosen: ["wlan0"], ports, https: false, host: "0.0.0.0" };
    const follower = followEntries(
      watcher,
      () => config,
      (s) => states.push(s),
    );
    expect(follower.state().lan.map((l) => l.address)).toEqual(["10.0.0.7"]);

    table.set([eth("192.168.1.9"), wlan("10.0.0.42")]);
    timer.tick();
    expect(states.map((s) => ({ urls: s.urls, missing: s.missing }))).toEqual([
      {
        urls: ["http://127.0.0.1:8000", "http://localhost:8000", "http://10.0.0.42:8000"],
        missing: [],
      },
    ]);

    // Wi-Fi off: the chosen interface is reported, not dropped from the choice.
    table.set([eth("192.168.1.9")]);
    timer.tick();
    expect(states[1].missing).toEqual(["wlan0"]);
  });

  it("recomputes when the settings change, and stops listening when stopped", () => {
    const timer = new ManualTimer();
    const table = source([eth("192.168.1.9")]);
    const watcher = watchInterfaces(table.poll, 1000, timer);
    const states: EntryState[] = [];
    let config: EntryConfig = { chosen: "all", ports, https: false, host: "0.0.0.0" };
    const follower = followEntries(
      watcher,
      () => config,
      (s) => states.push(s),
    );

    follower.refresh();
    expect(states).toEqual([]);
    config = { ...config, https: true };
    follower.refresh();
    expect(states[0].lan).toEqual([
      {
        address: "192.168.1.9",
        name: "eth0",
        http: "http://192.168.1.9:8000",
        https: "https://192.168.1.9:8443",
      },
    ]);

    follower.stop();
    table.set([eth("192.168.1.40")]);
    timer.tick();
    expect(states).toHaveLength(1);
  });
});
