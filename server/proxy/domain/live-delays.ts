import type { CoreProxy } from "../context.js";
import { MINUTE_MS } from "../../contract/time-units.js";

/** What the node list shows of each core node. */
export interface LiveNode {
  /** Last measured delay in ms (0 = the last test failed), or null when never tested. */
  delay: number | null;
  udp: boolean | undefined;
}

export interface LiveDelaysOptions {
  /** Reads the core's `/proxies` (the only source of delay history). */
  fetch(): Promise<Record<string, CoreProxy>>;
  now?: () => number;
  /** A copy younger than this is served as is. */
  freshMs?: number;
  /** A copy younger than this is served at once while a newer one is fetched in the background. */
  staleMs?: number;
}

/**
 * The core's live node data for `GET /nodes`. mihomo's `/proxies` answer is megabytes for a
 * few thousand nodes, and delay history only changes when a test runs, so one copy serves
 * the list for a few seconds (stale-while-revalidate, one fetch at a time). Results of our
 * own latency tests are written in directly, so a test shows at once.
 */
export class LiveDelays {
  private data: Map<string, LiveNode> | null = null;
  private fetchedAt = 0;
  private inflight: Promise<Map<string, LiveNode> | null> | null = null;
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
  async get(): Promise<Map<string, LiveNode> | null> {
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
    const entry = this.data?.get(coreName);
    if (entry) entry.delay = delay;
    else this.data?.set(coreName, { delay, udp: undefined });
  }

  /** Forgets everything (the core stopped, restarted or got a new configuration). */
  clear(): void {
    this.data = null;
    this.fetchedAt = 0;
    this.generation++;
  }

  private refresh(): Promise<Map<string, LiveNode> | null> {
    if (this.inflight) return this.inflight;
    const generation = this.generation;
    this.inflight = this.opts
      .fetch()
      .then((proxies) => {
        const map = new Map<string, LiveNode>();
        for (const [name, p] of Object.entries(proxies)) {
          const last = p.history.length > 0 ? p.history[p.history.length - 1] : null;
          map.set(name, {
            delay: last ? Math.max(0, Math.round(last.delay)) : null,
            udp: typeof p.udp === "boolean" ? p.udp : undefined,
          });
        }
        if (generation === this.generation) {
          this.data = map;
          this.fetchedAt = this.now();
        }
        return map;
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
