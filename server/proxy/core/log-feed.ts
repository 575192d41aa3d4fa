import { randomBytes } from "node:crypto";
import type { StreamOptions } from "./mihomo-client.js";

/** One core log line as the service keeps and sends it. */
export interface CoreLogLine {
  /** Increases by one per line received; with `epoch` it names the line (SSE event id). */
  seq: number;
  type: string;
  payload: string;
  /** When the service received it (the core's items carry no time). */
  time: string;
}

/** The core's log stream: calls `onItem` per item until it ends (resolves) or breaks (throws). */
export type LogSource = (
  onItem: (item: { type: string; payload: string }) => void,
  opts: StreamOptions,
) => Promise<void>;

export interface LogWatcher {
  line(line: CoreLogLine): void;
  /**
   * The connection to the core's log ended: `error` is why, null when the core ended it
   * cleanly. The watcher is dropped.
   */
  ended(error: unknown): void;
}

export interface CoreLogFeedOptions {
  /** Lines kept for whoever opens the log later (default 500). */
  keep?: number;
  /** Wait before following again after the core's stream ended while the core should run. */
  retryMs?: number;
  connectTimeoutMs?: number;
  /** Longer payloads are cut, so the kept lines stay small (default 4096 characters). */
  maxPayload?: number;
  now?: () => number;
  /** Takes secrets out of a line before it is kept or sent. */
  redact?: (text: string) => string;
  /** Sees every line as it is kept (the listen problems are read from them). */
  observe?: (line: CoreLogLine) => void;
}

export const KEPT_LOG_LINES = 500;

/** A redactor that replaces the controller secret, wherever it appears in a line. */
export function withoutSecret(secret: string): (text: string) => string {
  return (text) => (secret && text.includes(secret) ? text.split(secret).join("[redacted]") : text);
}

/**
 * One connection to the core's log shared by every viewer, and the last lines kept in a
 * bounded ring. It follows while the core should run (so lines are kept while nobody looks)
 * and while anyone watches; the core's item level is its default, info and above.
 */
export class CoreLogFeed {
  /** Distinguishes this process's sequence numbers from an earlier run's. */
  readonly epoch = randomBytes(4).toString("hex");
  private readonly ring: CoreLogLine[] = [];
  private seq = 0;
  private readonly watchers = new Set<LogWatcher>();
  private following = false;
  private closed = false;
  private loop: Promise<void> | null = null;
  private abort: AbortController | null = null;
  private wake: (() => void) | null = null;

  constructor(
    private readonly source: LogSource,
    private readonly opts: CoreLogFeedOptions = {},
  ) {}

  /** The kept lines, oldest first. */
  recent(): CoreLogLine[] {
    return [...this.ring];
  }

  /** New lines go to `watcher` until the returned function is called or the stream ends. */
  watch(watcher: LogWatcher): () => void {
    this.watchers.add(watcher);
    this.ensure();
    return () => {
      this.watchers.delete(watcher);
      this.settle();
    };
  }

  /** Whether the core should run: while it should, its log is followed (and retried). */
  setFollowing(on: boolean): void {
    this.following = on;
    if (on) this.ensure();
    else this.settle();
  }

  close(): void {
    this.closed = true;
    this.watchers.clear();
    this.settle();
  }

  private wanted(): boolean {
    return !this.closed && (this.following || this.watchers.size > 0);
  }

  /** Stops the connection (or the wait before the next one) when nobody needs it. */
  private settle(): void {
    if (this.wanted()) return;
    this.abort?.abort();
    this.wake?.();
  }

  private ensure(): void {
    if (!this.wanted()) return;
    if (this.loop) {
      // Waiting to retry: a new viewer should not wait for the timer.
      this.wake?.();
      return;
    }
    this.loop = this.run().finally(() => {
      this.loop = null;
      this.ensure();
    });
  }

  /** An item as it may be kept or shown: secrets taken out, the payload cut to size. */
  clean(item: { type: string; payload: string }): { type: string; payload: string } {
    const redact = this.opts.redact ?? ((t: string) => t);
    const max = this.opts.maxPayload ?? 4096;
    const payload = redact(item.payload);
    return {
      type: redact(item.type).slice(0, 16),
      payload: payload.length > max ? `${payload.slice(0, max)}…` : payload,
    };
  }

  private push(item: { type: string; payload: string }): void {
    const line: CoreLogLine = {
      seq: ++this.seq,
      ...this.clean(item),
      time: new Date((this.opts.now ?? Date.now)()).toISOString(),
    };
    this.ring.push(line);
    const keep = this.opts.keep ?? KEPT_LOG_LINES;
    if (this.ring.length > keep) this.ring.splice(0, this.ring.length - keep);
    this.opts.observe?.(line);
    for (const w of this.watchers) w.line(line);
  }

  private async run(): Promise<void> {
    while (this.wanted()) {
      const ctl = new AbortController();
      this.abort = ctl;
      let error: unknown = null;
      try {
        await this.source((item) => this.push(item), {
          signal: ctl.signal,
          connectTimeoutMs: this.opts.connectTimeoutMs ?? 3000,
        });
      } catch (err) {
        error = err;
      } finally {
        this.abort = null;
      }
      // Stopped on purpose: the loop's condition decides whether anyone still needs it.
      if (ctl.signal.aborted) continue;
      const ended = [...this.watchers];
      this.watchers.clear();
      for (const w of ended) w.ended(error);
      if (!this.wanted()) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.opts.retryMs ?? 1000);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }
}
