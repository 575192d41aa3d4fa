import type { Clock } from "../../clock.js";
import { isoNow } from "../types.js";
import { metricsFrom, type CounterSample, type Metrics } from "./metrics.js";

/** One metrics event as every `/events` stream sends it. */
export type TimedMetrics = Metrics & { time: string };

export interface MetricsPollerOptions {
  /** One reading of the core's counters; null when the core cannot be asked. */
  sample(): Promise<CounterSample | null>;
  clock: Clock;
  /** Time between two readings (read at each one, so tests may shorten it). */
  intervalMs(): number;
}

/**
 * The one poller of the core's counters behind every open `/events` stream: the core is asked
 * once per interval however many consoles watch (each stream asking on its own multiplied the
 * core's work, a `/connections` answer of megabytes each time, by the number of streams).
 * It runs only while someone watches; a new watcher gets the latest reading at once.
 */
export class MetricsPoller {
  private readonly watchers = new Set<(m: TimedMetrics) => void>();
  private prev: CounterSample | null = null;
  private last: TimedMetrics | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** Bumped when the last watcher leaves, so a reading still on its way is dropped. */
  private round = 0;

  constructor(private readonly opts: MetricsPollerOptions) {}

  /** How many streams watch (for tests and the log). */
  get watching(): number {
    return this.watchers.size;
  }

  /** Adds a watcher; answers the function that removes it. */
  watch(watcher: (m: TimedMetrics) => void): () => void {
    this.watchers.add(watcher);
    if (this.watchers.size === 1) void this.tick(this.round);
    else if (this.last) watcher(this.last);
    return () => {
      if (!this.watchers.delete(watcher) || this.watchers.size > 0) return;
      // Nobody watches: no more readings, and the next watcher starts afresh (rates 0).
      this.round++;
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.prev = null;
      this.last = null;
    };
  }

  private async tick(round: number): Promise<void> {
    this.timer = null;
    const startedAt = Date.now();
    const cur = await this.opts.sample().catch(() => null);
    if (round !== this.round) return;
    // After a failure the next success starts over (its rates are 0).
    const metrics = metricsFrom(this.prev, cur);
    this.prev = cur;
    this.last = { ...metrics, time: isoNow(this.opts.clock.now()) };
    for (const watcher of [...this.watchers]) watcher(this.last);
    const wait = Math.max(0, this.opts.intervalMs() - (Date.now() - startedAt));
    this.timer = setTimeout(() => void this.tick(round), wait);
    this.timer.unref();
  }
}
