import type { CoreProxy } from "../context.js";
import { MINUTE_MS } from "../../contract/time-units.js";

/** What the node list shows of each core node. */
export interface LiveNode {
  /** Last measured delay in ms (0 = the last test failed), or null when never tested. */
  delay: number | null;
  udp: boolean | undefined;
}

/**
 * The core's node data in columns: cheap to hand from the reader's thread to the service's
 * (two typed arrays are moved, not copied, and one array of names).
 */
export interface LiveColumns {
  names: string[];
  /** Last delay in ms, rounded; -1 when never tested. */
  delays: Int32Array;
  /** 1 when the node does UDP, 0 when it does not, -1 when the core does not say. */
  udp: Int8Array;
}

/** The last history entry of each of the core's proxies, as columns. */
export function liveColumns(proxies: Record<string, CoreProxy>): LiveColumns {
  const names = Object.keys(proxies);
  const delays = new Int32Array(names.length);
  const udp = new Int8Array(names.length);
  names.forEach((name, i) => {
    const p = proxies[name];
    const last = p.history.length > 0 ? p.history[p.history.length - 1] : null;
    delays[i] = last ? Math.max(0, Math.round(last.delay)) : -1;
    udp[i] = typeof p.udp === "boolean" ? Number(p.udp) : -1;
  });
  return { names, delays, udp };
}

/** Names indexed per turn of the event loop: about a millisecond's work. */
const INDEX_SLICE = 5000;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** One copy of the live data, looked up by core name; our own test results are written in. */
export class LiveView {
  private readonly extra = new Map<string, LiveNode>();
  private changes = 0;

  private constructor(
    private readonly columns: LiveColumns,
    private readonly index: Map<string, number>,
  ) {}

  /** Indexes the columns by name, a slice per turn of the event loop (tens of thousands). */
  static async of(columns: LiveColumns): Promise<LiveView> {
    const index = new Map<string, number>();
    const { names } = columns;
    for (let start = 0; start < names.length; start += INDEX_SLICE) {
      if (start > 0) await nextTurn();
      const end = Math.min(names.length, start + INDEX_SLICE);
      for (let i = start; i < end; i++) index.set(names[i], i);
    }
    return new LiveView(columns, index);
  }

  /** Counts the results written in, so a rendering of this copy knows when it is out of date. */
  get version(): number {
    return this.changes;
  }

  get(coreName: string): LiveNode | undefined {
    const i = this.index.get(coreName);
    if (i === undefined) return this.extra.get(coreName);
    const { delays, udp } = this.columns;
    return {
      delay: delays[i] < 0 ? null : delays[i],
      udp: udp[i] < 0 ? undefined : udp[i] === 1,
    };
  }

  /** A latency test's result (0 = failed), as mihomo adds it to the node's history. */
  record(coreName: string, delay: number): void {
    this.changes++;
    const i = this.index.get(coreName);
    if (i !== undefined) this.columns.delays[i] = delay;
    else this.extra.set(coreName, { delay, udp: undefined });
  }
}

export interface LiveDelaysOptions {
  /** Reads the core's `/proxies` (the only source of delay history), off the event loop. */
  fetch(): Promise<LiveColumns>;
  now?: () => number;
  /** A copy younger than this is served as is. */
  freshMs?: number;
  /** A copy younger than this is served at once while a newer one is fetched in the background. */
  staleMs?: number;
}

/**
 * The core's live node data for `GET /nodes`. mihomo's `/proxies` answer is megabytes for a
 * few thousand nodes, and delay history only changes when a test runs, so one copy serves
 * the list for a few seconds (stale-while-revalidate, one fetch at a time): only a request
 * that finds no copy, or one older than `staleMs`, waits for the core. Results of our own
 * latency tests are written in directly, so a test shows at once.
 */
export class LiveDelays {
  private data: LiveView | null = null;
  private fetchedAt = 0;
  private inflight: Promise<LiveView | null> | null = null;
  private generation = 0;
  private readonly now: () => number;
  private readonly freshMs: number;
  private readonly staleMs: number;

  constructor(private readonly opts: LiveDelaysOptions) {
    this.now = opts.now ?? Date.now;
    this.freshMs = opts.freshMs ?? 5000;
    this.staleMs = opts.staleMs ?? MINUTE_MS;
  }

  /** The live data, or null when the core cannot be reached. */
  async get(): Promise<LiveView | null> {
    const age = this.now() - this.fetchedAt;
    if (this.data && age < this.freshMs) return this.data;
    if (this.data && age < this.staleMs) {
      void this.refresh();
      return this.data;
    }
    return this.refresh();
  }

  /** Records a latency test's result (0 = failed), as mihomo adds it to the node's history. */
  record(coreName: string, delay: number): void {
    this.data?.record(coreName, delay);
  }

  /** Forgets everything (the core stopped, restarted or got a new configuration). */
  clear(): void {
    this.data = null;
    this.fetchedAt = 0;
    this.generation++;
  }

  private refresh(): Promise<LiveView | null> {
    if (this.inflight) return this.inflight;
    const generation = this.generation;
    this.inflight = this.opts
      .fetch()
      .then(async (columns) => {
        const view = await LiveView.of(columns);
        if (generation === this.generation) {
          this.data = view;
          this.fetchedAt = this.now();
        }
        return view;
      })
      .catch(() => {
        // Unreachable core: no live data until it answers again.
        if (generation === this.generation) this.clear();
        return null;
      })
      .finally(() => {
        this.inflight = null;
      });
    return this.inflight;
  }
}
