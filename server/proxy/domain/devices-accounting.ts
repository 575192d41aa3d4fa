import type { Clock } from "../../clock.js";
import { HOUR_MS, SECOND_MS } from "../../contract/time-units.js";
import type { AccountingReading } from "../core/core-shapes.js";
import type { SqlProxyStore } from "../store/proxy-store.js";
import type { TrafficAdd } from "../store/traffic.js";
import type { DeviceDiscovery } from "./devices-discovery.js";
import { hourOf, KEEP_DAYS, localDayOf } from "./devices-time.js";

/** How often the core's connections are read while it runs. */
export const POLL_MS = 2 * SECOND_MS;
/** How often what was counted is written to the database (at most). */
export const FLUSH_MS = 10 * SECOND_MS;

export interface AccountingOptions {
  store: SqlProxyStore;
  clock: Clock;
  discovery: DeviceDiscovery;
  /** One reading of the core (in the core reader's worker); null when no core runs. */
  read(): Promise<AccountingReading | null>;
  /** Told when devices or addresses changed (the compiled policies may have to follow). */
  onChanged(): void;
  /** Told of a failure of a write (the counts stay in memory and are tried again). */
  onError(err: unknown): void;
  pollMs?: number;
  flushMs?: number;
}

/** Counted but not yet written: per device, per hour. */
interface Pending {
  hours: Map<number, TrafficAdd>;
  lastSeen: number;
  addresses: Set<string>;
}

/** What the count has seen since the service started (for tests, benchmarks and the log). */
export interface AccountingStats {
  readings: number;
  /** Bytes attributed to devices. */
  counted: { upload: number; download: number };
  /** Bytes the core's totals grew by that no open connection accounted for. */
  missed: { upload: number; download: number };
  /** Bytes of connections from the gateway itself (loopback, its own addresses). */
  gateway: { upload: number; download: number };
  /**
   * The longest the event loop spent in one synchronous step of the counting (binding the
   * addresses, attributing a reading, or writing): what counting adds to its delay.
   */
  longestStepMs: number;
}

/**
 * Counts what each device moves while the core runs, whether or not anyone watches: every
 * `POLL_MS` the core reader's worker reads the core's connections and answers the bytes per
 * source address since its previous reading; the service's thread attributes them to devices
 * and keeps them in memory, and writes them to the hourly and daily tables at most every
 * `FLUSH_MS` (and when the service stops), dropping what is older than 90 days once an hour.
 */
export class TrafficAccounting {
  private readonly pending = new Map<number, Pending>();
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private lastFlush = 0;
  private lastPrune = -Infinity;
  private polling: Promise<void> | null = null;
  readonly stats: AccountingStats = {
    readings: 0,
    counted: { upload: 0, download: 0 },
    missed: { upload: 0, download: 0 },
    gateway: { upload: 0, download: 0 },
    longestStepMs: 0,
  };

  constructor(private readonly opts: AccountingOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.lastFlush = Date.now();
    this.schedule(0);
  }

  /** Stops reading and writes what was counted. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.polling;
    this.flush();
  }

  /** One reading now (tests call it instead of waiting for the timer). */
  poll(): Promise<void> {
    this.polling ??= this.pollOnce().finally(() => {
      this.polling = null;
    });
    return this.polling;
  }

  /** What was counted and not yet written, per device key and hour. */
  unwritten(): ReadonlyMap<number, Pending> {
    return this.pending;
  }

  /** Drops what was counted for a device that is forgotten. */
  forget(key: number): void {
    this.pending.delete(key);
  }

  /** Writes what was counted, in one transaction; on failure it stays to be written later. */
  flush(): void {
    const started = performance.now();
    try {
      this.flushNow();
    } finally {
      this.step(performance.now() - started);
    }
  }

  private step(ms: number): void {
    if (ms > this.stats.longestStepMs) this.stats.longestStepMs = ms;
  }

  private flushNow(): void {
    const { store, clock } = this.opts;
    this.lastFlush = Date.now();
    if (!store.open) return;
    const now = clock.now();
    try {
      store.transaction(() => {
        const rows: TrafficAdd[] = [];
        for (const [key, p] of this.pending) {
          // A device forgotten meanwhile has nothing left to write to.
          if (!store.devices.byKey(key)) continue;
          rows.push(...[...p.hours.values()].filter((r) => r.upload > 0 || r.download > 0));
          store.devices.seen(key, p.lastSeen);
          for (const ip of p.addresses) store.devices.touchAddress(ip, p.lastSeen);
        }
        store.traffic.add(rows);
        if (now - this.lastPrune >= HOUR_MS) {
          store.traffic.prune(hourOf(now) - KEEP_DAYS * 24, localDayOf(now) - KEEP_DAYS);
          this.lastPrune = now;
        }
      });
      this.pending.clear();
    } catch (err) {
      this.opts.onError(err);
    }
    if (this.opts.discovery.expire(now)) this.opts.onChanged();
  }

  private schedule(ms: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      const started = Date.now();
      void this.poll().finally(() => {
        // The write in a task of its own: the reading's attribution has just run, and both
        // in one stretch would add up on the event loop.
        setImmediate(() => {
          if (!this.running) return;
          if (Date.now() - this.lastFlush >= (this.opts.flushMs ?? FLUSH_MS)) this.flush();
          // Readings start every POLL_MS however long one takes (a slow one is followed at once).
          this.schedule(Math.max(0, (this.opts.pollMs ?? POLL_MS) - (Date.now() - started)));
        });
      });
    }, ms);
    this.timer.unref();
  }

  private async pollOnce(): Promise<void> {
    let reading: AccountingReading | null;
    try {
      reading = await this.opts.read();
    } catch {
      // The core is down or restarting: nothing is counted; its next reading starts over.
      return;
    }
    if (!reading || !this.opts.store.open) return;
    const at = this.opts.clock.now();
    const resolved = await this.opts.discovery.resolve(
      reading.sources.map((s) => s[0]),
      at,
    );
    const started = performance.now();
    this.step(resolved.syncMs);
    for (const [from, into] of resolved.merged) this.rekey(from, into);
    const { stats } = this;
    stats.readings++;
    stats.missed.upload += reading.missedUpload;
    stats.missed.download += reading.missedDownload;
    const hour = hourOf(at);
    const day = localDayOf(at);
    for (const [src, up, down] of reading.sources) {
      const device = resolved.keys.get(src);
      if (device === undefined) {
        stats.gateway.upload += up;
        stats.gateway.download += down;
        continue;
      }
      const { key, ip } = device;
      stats.counted.upload += up;
      stats.counted.download += down;
      let p = this.pending.get(key);
      if (!p) {
        p = { hours: new Map(), lastSeen: at, addresses: new Set() };
        this.pending.set(key, p);
      }
      p.lastSeen = at;
      p.addresses.add(ip);
      let row = p.hours.get(hour);
      if (!row) {
        row = { key, hour, day, upload: 0, download: 0 };
        p.hours.set(hour, row);
      }
      row.upload += up;
      row.download += down;
    }
    if (resolved.changed) this.opts.onChanged();
    this.step(performance.now() - started);
  }

  /** Counts of a device that turned out to be another one go to that one. */
  private rekey(from: number, into: number): void {
    const p = this.pending.get(from);
    if (!p) return;
    this.pending.delete(from);
    const q = this.pending.get(into) ?? { hours: new Map(), lastSeen: 0, addresses: new Set() };
    for (const [hour, row] of p.hours) {
      const r = q.hours.get(hour) ?? { ...row, key: into, upload: 0, download: 0 };
      r.upload += row.upload;
      r.download += row.download;
      q.hours.set(hour, r);
    }
    q.lastSeen = Math.max(q.lastSeen, p.lastSeen);
    for (const a of p.addresses) q.addresses.add(a);
    this.pending.set(into, q);
  }
}
