import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SubscriptionError } from "../../server/proxy/subscriptions/errors.js";
import { ParsePool } from "../../server/proxy/subscriptions/parse-pool.js";
import { parseSubscription } from "../../server/proxy/subscriptions/parse.js";
import { FEEDS_DIR } from "../fixtures/feed-server.js";

const feed = (name: string): Buffer => readFileSync(join(FEEDS_DIR, name));

/**
 * A valid document the general YAML library has to read (a tag keeps the fast reader out):
 * 6,000 nodes are about 0.6 MB, which takes the library most of a second.
 */
function slowDocument(count = 6_000): string {
  const lines = ["proxies:"];
  for (let i = 0; i < count; i++) {
    lines.push(
      `  - name: !!str node ${i}`,
      "    type: ss",
      `    server: s${i % 100}.example.net`,
      `    port: ${1000 + (i % 60_000)}`,
      "    cipher: aes-128-gcm",
      `    password: pw${i}`,
    );
  }
  return lines.join("\n") + "\n";
}

/** Measures how late a 20 ms timer fires while `work` runs: the event loop's worst stall. */
async function worstLag<T>(work: Promise<T>): Promise<{ lagMs: number; outcome: T | Error }> {
  let worst = 0;
  let last = performance.now();
  const probe = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - 20);
    last = now;
  }, 20);
  try {
    const outcome = await work.catch((err: unknown) => err as Error);
    return { lagMs: worst, outcome };
  } finally {
    clearInterval(probe);
  }
}

let pool: ParsePool | null = null;
afterEach(async () => {
  await pool?.close();
  pool = null;
});

describe("parsing subscriptions in a worker thread", () => {
  it("gives the same nodes as parsing in place, for a Buffer and for a string", async () => {
    pool = new ParsePool();
    for (const name of ["clash.yml", "base64-all.txt", "sip008.json", "uri-list.txt"]) {
      const body = feed(name);
      expect(await pool.parse(body), name).toEqual(parseSubscription(body));
      expect(await pool.parse(body.toString("utf8")), name).toEqual(parseSubscription(body));
    }
  });

  it("rejects an unreadable document with the same SubscriptionError as in place", async () => {
    pool = new ParsePool();
    const body = feed("garbage.html");
    expect(() => parseSubscription(body)).toThrow(SubscriptionError);
    const err = await pool.parse(body).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SubscriptionError);
    expect((err as Error).message).toBe("The subscription is not in a recognised format");
  });

  it("refuses 16,000 aliases quickly, naming the reason, and the event loop never stalls", async () => {
    pool = new ParsePool();
    await pool.parse(feed("clash.yml")); // the worker is loaded before the clock starts
    const body =
      "proxies:\n  - &a {name: n, type: ss, server: h.example, port: 1, cipher: aes-128-gcm, password: p}\n" +
      "  - *a\n".repeat(16_000);
    const started = performance.now();
    const { lagMs, outcome } = await worstLag(pool.parse(body));
    expect(outcome).toBeInstanceOf(SubscriptionError);
    expect((outcome as Error).message).toMatch(/more than 10,000 YAML aliases/);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(lagMs).toBeLessThan(1_000);
  });

  it("stops a parse that runs past its budget, says so, and reads the next document", async () => {
    pool = new ParsePool({ budgetMs: 100 });
    await pool.parse(feed("uri-list.txt"));
    const started = performance.now();
    const { lagMs, outcome } = await worstLag(pool.parse(slowDocument()));
    expect(outcome).toBeInstanceOf(SubscriptionError);
    expect((outcome as Error).message).toBe(
      "The subscription took longer than 100 ms to read; reading it was stopped",
    );
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(lagMs).toBeLessThan(1_000);
    // The stopped worker is replaced: the pool keeps serving.
    expect((await pool.parse(feed("sip008.json"))).format).toBe("sip008");
  });

  it("reads the same slow document in full when the budget allows it", async () => {
    pool = new ParsePool({ budgetMs: 20_000 });
    const out = await pool.parse(slowDocument());
    expect(out.nodes).toHaveLength(6_000);
    expect(out.nodes[5]).toMatchObject({ name: "node 5", password: "pw5", port: 1005 });
  });

  it("fails a document that needs more memory than a worker may use, and recovers", async () => {
    pool = new ParsePool({ memoryMb: 48 });
    const out = await pool.parse(feed("clash.yml"));
    expect(out.nodes.length).toBeGreaterThan(0);
    const err = await pool.parse(slowDocument(40_000)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SubscriptionError);
    expect((err as Error).message).toBe(
      "The subscription needs more than 48 MB of memory to read; it was not read",
    );
    expect((await pool.parse(feed("clash.yml"))).nodes).toEqual(out.nodes);
  });

  it("reads a 16 MiB list of 145,000 links within the default budget and memory", async () => {
    pool = new ParsePool();
    const link = (i: number): string =>
      `ss://YWVzLTI1Ni1nY206cGFzc3dvcmQtMTIzNDU2Nzg5MA@s${i}.example.net:8388#node-${i}-xxxxxxxxxxxxxxxxxxxxxxxxxxxx`;
    const body = Buffer.from(Array.from({ length: 145_000 }, (_, i) => link(i)).join("\n"));
    expect(body.length).toBeLessThanOrEqual(16 * 1024 * 1024);
    const out = await pool.parse(body);
    expect(out.nodes).toHaveLength(145_000);
    expect(out.nodes[144_999]).toMatchObject({ name: "node-144999-xxxxxxxxxxxxxxxxxxxxxxxxxxxx" });
  });

  it("answers every parse when more arrive at once than there are workers", async () => {
    pool = new ParsePool({ maxWorkers: 2 });
    const bodies = ["clash.yml", "base64-all.txt", "sip008.json"].map(feed);
    const results = await Promise.all(bodies.map((b) => pool?.parse(b)));
    expect(results.map((r) => r?.format)).toEqual(["clash", "base64", "sip008"]);
  });

  it("fails parses after close instead of hanging", async () => {
    pool = new ParsePool();
    // Close once a worker holds the document (the pool posts it when the worker is ready).
    const handed = vi.spyOn(Worker.prototype, "postMessage");
    const inFlight = pool.parse(slowDocument());
    await vi.waitFor(() => expect(handed).toHaveBeenCalledTimes(1), { timeout: 10_000 });
    handed.mockRestore();
    await pool.close();
    await expect(inFlight).rejects.toThrow(/stopped/);
    await expect(pool.parse("ss://x")).rejects.toThrow("The subscription reader has been stopped");
  });
});
