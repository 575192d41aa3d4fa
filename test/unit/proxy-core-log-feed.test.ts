import { afterEach, describe, expect, it, vi } from "vitest";
import { CoreLogFeed, type CoreLogLine, type LogSource } from "../../server/proxy/core/log-feed.js";

/** A core log stream the test drives: emit items, end it, or break it. */
class FakeStream {
  connects = 0;
  open = 0;
  private emit: ((item: { type: string; payload: string }) => void) | null = null;
  private finish: ((err?: unknown) => void) | null = null;
  /** When set, the next connection fails at once with this error. */
  refuse: Error | null = null;

  source: LogSource = (onItem, opts) => {
    this.connects++;
    if (this.refuse) return Promise.reject(this.refuse);
    this.open++;
    this.emit = onItem;
    return new Promise<void>((resolve, reject) => {
      const done = (err?: unknown) => {
        this.open--;
        this.emit = null;
        this.finish = null;
        if (err) reject(err);
        else resolve();
      };
      this.finish = done;
      opts.signal?.addEventListener("abort", () => done(), { once: true });
    });
  };

  push(type: string, payload: string): void {
    if (!this.emit) throw new Error("no stream is open");
    this.emit({ type, payload });
  }
  end(err?: unknown): void {
    this.finish?.(err);
  }
}

/** Polls `check` (advancing the clock by each interval when it is fake) until it holds. */
async function until(check: () => boolean, what: string): Promise<void> {
  await vi.waitFor(
    () => {
      if (!check()) throw new Error(`timed out waiting for ${what}`);
    },
    { timeout: 1000, interval: 5 },
  );
}

const RETRY_MS = 5;

afterEach(() => {
  vi.useRealTimers();
});

describe("CoreLogFeed", () => {
  it("keeps only the last 500 lines, numbered in order", async () => {
    const s = new FakeStream();
    const feed = new CoreLogFeed(s.source);
    feed.setFollowing(true);
    await until(() => s.open === 1, "the stream");
    for (let i = 1; i <= 620; i++) s.push("info", `line ${i}`);
    const kept = feed.recent();
    expect(kept).toHaveLength(500);
    expect(kept[0]).toMatchObject({ seq: 121, payload: "line 121" });
    expect(kept[499]).toMatchObject({ seq: 620, payload: "line 620" });
    expect(kept.every((l, i) => i === 0 || l.seq === kept[i - 1].seq + 1)).toBe(true);
    feed.close();
  });

  it("cuts long lines and takes the secret out of what it keeps and sends", async () => {
    const s = new FakeStream();
    const secret = "0123456789abcdef0123456789abcdef";
    const feed = new CoreLogFeed(s.source, {
      maxPayload: 100,
      redact: (t) => t.split(secret).join("[redacted]"),
      now: () => Date.UTC(2026, 0, 2, 3, 4, 5),
    });
    const got: CoreLogLine[] = [];
    feed.watch({ line: (l) => got.push(l), ended: () => undefined });
    await until(() => s.open === 1, "the stream");
    s.push("info", `GET /logs?token=${secret}`);
    s.push("warning", "x".repeat(5000));
    expect(got.map((l) => l.payload)).toEqual([
      "GET /logs?token=[redacted]",
      `${"x".repeat(100)}…`,
    ]);
    expect(JSON.stringify(feed.recent())).not.toContain(secret);
    expect(got[0].time).toBe("2026-01-02T03:04:05.000Z");
    feed.close();
  });

  it("follows while the core should run, even with nobody watching, and comes back after a break", async () => {
    vi.useFakeTimers();
    const s = new FakeStream();
    const feed = new CoreLogFeed(s.source, { retryMs: RETRY_MS });
    feed.setFollowing(true);
    await until(() => s.open === 1, "the stream");
    s.push("info", "before");
    s.end(new Error("The proxy core's stream broke off"));
    await until(() => s.connects === 2 && s.open === 1, "a second connection");
    s.push("info", "after");
    expect(feed.recent().map((l) => l.payload)).toEqual(["before", "after"]);
    feed.setFollowing(false);
    await until(() => s.open === 0, "the stream to close");
    // No retry is pending: ten retry periods pass on the fake clock and nothing reconnects.
    await vi.advanceTimersByTimeAsync(10 * RETRY_MS);
    expect(s.connects).toBe(2);
    feed.close();
  });

  it("connects for a viewer only while one watches, and tells it when the stream ends", async () => {
    vi.useFakeTimers();
    const s = new FakeStream();
    const feed = new CoreLogFeed(s.source, { retryMs: RETRY_MS });
    await vi.advanceTimersByTimeAsync(10 * RETRY_MS);
    expect(s.connects).toBe(0);
    const ended: unknown[] = [];
    const lines: string[] = [];
    const unwatch = feed.watch({ line: (l) => lines.push(l.payload), ended: (e) => ended.push(e) });
    await until(() => s.open === 1, "the stream");
    s.push("error", "boom");
    unwatch();
    await until(() => s.open === 0, "the stream to close when nobody watches");
    expect(ended).toEqual([]);

    feed.watch({ line: (l) => lines.push(l.payload), ended: (e) => ended.push(e) });
    await until(() => s.open === 1, "a new stream");
    s.end();
    await until(() => ended.length === 1, "the end");
    expect(ended[0]).toBeNull();
    // Nobody watches and the core is not meant to run: ten retry periods pass with no retry.
    await vi.advanceTimersByTimeAsync(10 * RETRY_MS);
    expect(s.connects).toBe(2);
    expect(lines).toEqual(["boom"]);
    feed.close();
  });

  it("reports a failed connection to the viewer at once", async () => {
    const s = new FakeStream();
    s.refuse = new Error("The proxy core cannot be reached (ECONNREFUSED)");
    const feed = new CoreLogFeed(s.source, { retryMs: RETRY_MS });
    const ended: unknown[] = [];
    feed.watch({ line: () => undefined, ended: (e) => ended.push(e) });
    await until(() => ended.length === 1, "the failure");
    expect(String(ended[0])).toMatch(/ECONNREFUSED/);
    feed.close();
  });
});
