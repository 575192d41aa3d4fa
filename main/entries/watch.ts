import { EventEmitter } from "node:events";
import { detectInterfaces, type DetectedInterface } from "./detect.js";
import { entryState, sameEntryState, type EntryConfig, type EntryState } from "./entries.js";

/**
 * Follows the machine's addresses while the app runs: a new DHCP lease, a cable plugged in,
 * Wi-Fi joining another network. The OS gives no portable event for that, so the interface
 * table is polled; listeners hear only of real changes.
 */

export interface Timer {
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

const realTimer: Timer = {
  setInterval(fn, ms) {
    const handle = setInterval(fn, ms);
    // A poll never keeps the process alive on its own.
    handle.unref();
    return handle;
  },
  clearInterval(handle) {
    clearInterval(handle as NodeJS.Timeout);
  },
};

export interface InterfaceChange {
  detected: DetectedInterface[];
  added: DetectedInterface[];
  removed: DetectedInterface[];
}

function keyOf(d: DetectedInterface): string {
  return `${d.name}\u0000${d.address}`;
}

/**
 * Emits `change` ({@link InterfaceChange}) when the set of detected interfaces differs from
 * the last one seen, and `warning` (an Error) when reading the table fails (the last set is
 * kept). `check()` polls at once, e.g. when the OS says it resumed from sleep.
 */
export class InterfaceWatcher extends EventEmitter {
  private last: DetectedInterface[];
  private handle: unknown = null;

  constructor(
    private readonly poll: () => DetectedInterface[],
    intervalMs: number,
    private readonly timer: Timer,
  ) {
    super();
    this.last = poll();
    this.handle = timer.setInterval(() => this.check(), intervalMs);
  }

  get current(): DetectedInterface[] {
    return this.last;
  }

  /** Polls now; true when the set changed (and `change` was emitted). */
  check(): boolean {
    let next: DetectedInterface[];
    try {
      next = this.poll();
    } catch (err) {
      this.emit("warning", err);
      return false;
    }
    const before = new Map(this.last.map((d) => [keyOf(d), d]));
    const after = new Map(next.map((d) => [keyOf(d), d]));
    const added = next.filter((d) => !before.has(keyOf(d)));
    const removed = this.last.filter((d) => !after.has(keyOf(d)));
    if (added.length === 0 && removed.length === 0) return false;
    this.last = next;
    const change: InterfaceChange = { detected: next, added, removed };
    this.emit("change", change);
    return true;
  }

  stop(): void {
    if (this.handle !== null) this.timer.clearInterval(this.handle);
    this.handle = null;
  }
}

export function watchInterfaces(
  poll: () => DetectedInterface[] = () => detectInterfaces(),
  intervalMs = 5000,
  timer: Timer = realTimer,
): InterfaceWatcher {
  return new InterfaceWatcher(poll, intervalMs, timer);
}

export interface EntryFollower {
  /** The entries now. */
  state(): EntryState;
  /** Recomputes after the configuration changed (settings saved); reports when it differs. */
  refresh(): void;
  stop(): void;
}

/**
 * Keeps the entry state in step with the interfaces and the settings: `onChange` hears every
 * new state (new URLs for the services and QR codes, a chosen address gone or back), and
 * nothing else.
 */
export function followEntries(
  watcher: InterfaceWatcher,
  config: () => EntryConfig,
  onChange: (state: EntryState) => void,
): EntryFollower {
  let current = entryState(config(), watcher.current);
  const update = (): void => {
    const next = entryState(config(), watcher.current);
    if (sameEntryState(current, next)) return;
    current = next;
    onChange(next);
  };
  watcher.on("change", update);
  return {
    state: () => current,
    refresh: update,
    stop: () => {
      watcher.off("change", update);
    },
  };
}
