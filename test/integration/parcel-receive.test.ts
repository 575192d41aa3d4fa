import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { crc32 } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CrcStream } from "../../server/parcel/storage/crc-thread.js";
import {
  receiveBody,
  ReceiveError,
  type ResumePoint,
} from "../../server/parcel/storage/receive.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gatehouse-receive-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function failure(p: Promise<unknown>): Promise<ReceiveError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ReceiveError) return err;
    throw err;
  }
  throw new Error("expected a ReceiveError");
}

describe("receiveBody", () => {
  it("writes exactly the declared bytes and hashes them with sha256 and crc32", async () => {
    const parts = [Buffer.from("hello "), Buffer.from("world")];
    const tmpPath = join(dir, "a.part");
    const seen: number[] = [];
    const got = await receiveBody(Readable.from(parts), {
      tmpPath,
      declared: 11,
      onBytes: (n) => seen.push(n),
    });
    const all = Buffer.concat(parts);
    expect(got).toEqual({
      sha256: createHash("sha256").update(all).digest("hex"),
      crc32: crc32(all),
      bytes: 11,
    });
    expect(readFileSync(tmpPath)).toEqual(all);
    expect(seen).toEqual([6, 5]);
  });

  it("fails too-short and too-long bodies and removes the partial file", async () => {
    const tmpPath = join(dir, "b.part");
    const short = await failure(
      receiveBody(Readable.from([Buffer.alloc(5)]), { tmpPath, declared: 6 }),
    );
    expect(short.kind).toBe("too-short");
    expect(existsSync(tmpPath)).toBe(false);
    const long = await failure(
      receiveBody(Readable.from([Buffer.alloc(4), Buffer.alloc(4)]), { tmpPath, declared: 6 }),
    );
    expect(long).toMatchObject({ kind: "too-long", bytes: 8 });
    expect(existsSync(tmpPath)).toBe(false);
  });

  it("stops when the byte counter refuses a chunk, keeping the refusal as the cause", async () => {
    const tmpPath = join(dir, "c.part");
    let total = 0;
    const refusal = new Error("over the limit");
    const err = await failure(
      receiveBody(Readable.from([Buffer.alloc(10), Buffer.alloc(10), Buffer.alloc(10)]), {
        tmpPath,
        declared: 30,
        onBytes: (n) => {
          total += n;
          if (total > 15) throw refusal;
        },
      }),
    );
    expect(err).toMatchObject({ kind: "cut-off", bytes: 20 });
    expect(err.cause).toBe(refusal);
    expect(existsSync(tmpPath)).toBe(false);
  });

  it("treats a source that closes early as aborted and one that stalls as slow", async () => {
    const tmpPath = join(dir, "d.part");
    const aborted = new PassThrough();
    const p1 = receiveBody(aborted, { tmpPath, declared: 100 });
    aborted.write(Buffer.alloc(10));
    setTimeout(() => aborted.destroy(), 20);
    expect((await failure(p1)).kind).toBe("aborted");
    expect(existsSync(tmpPath)).toBe(false);
    const stalled = new PassThrough();
    const p2 = receiveBody(stalled, {
      tmpPath,
      declared: 100,
      floor: { bytes: 1, windowMs: 50 },
    });
    stalled.write(Buffer.alloc(10));
    expect(await failure(p2)).toMatchObject({ kind: "slow", bytes: 10 });
    expect(existsSync(tmpPath)).toBe(false);
    stalled.destroy();
  });

  it("ends a transfer that trickles below the floor although bytes keep coming", async () => {
    const tmpPath = join(dir, "f.part");
    const source = new PassThrough();
    // 10 bytes every 10 ms is 100 bytes per 100 ms window, under the floor of 200.
    const drip = setInterval(() => source.write(Buffer.alloc(10)), 10);
    const started = Date.now();
    const err = await failure(
      receiveBody(source, { tmpPath, declared: 1_000_000, floor: { bytes: 200, windowMs: 100 } }),
    );
    clearInterval(drip);
    source.destroy();
    expect(err.kind).toBe("slow");
    expect(err.bytes).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(existsSync(tmpPath)).toBe(false);
  });

  it("keeps a transfer that moves at least the floor in every window", async () => {
    const tmpPath = join(dir, "g.part");
    const source = new PassThrough();
    let sent = 0;
    // 50 bytes every 10 ms is 500 per 100 ms window, well over the floor of 200.
    const drip = setInterval(() => {
      source.write(Buffer.alloc(50));
      sent += 50;
      if (sent === 2000) {
        clearInterval(drip);
        source.end();
      }
    }, 10);
    const got = await receiveBody(source, {
      tmpPath,
      declared: 2000,
      floor: { bytes: 200, windowMs: 100 },
    });
    expect(got.bytes).toBe(2000);
  });

  it("stops when its signal is aborted, keeping the reason as the cause", async () => {
    const tmpPath = join(dir, "h.part");
    const source = new PassThrough();
    const stopper = new AbortController();
    const p = receiveBody(source, { tmpPath, declared: 100, signal: stopper.signal });
    source.write(Buffer.alloc(10));
    setTimeout(() => stopper.abort("session ended"), 20);
    const err = await failure(p);
    expect(err.kind).toBe("stopped");
    expect(err.cause).toBe("session ended");
    expect(existsSync(tmpPath)).toBe(false);
    source.destroy();
  });

  it("reports a source that fails while the file is being created as aborted, with no unhandled error", async () => {
    const tmpPath = join(dir, "i.part");
    const unhandled: unknown[] = [];
    const onUncaught = (err: unknown) => unhandled.push(err);
    process.on("uncaughtException", onUncaught);
    try {
      const source = new PassThrough();
      const p = receiveBody(source, { tmpPath, declared: 100 });
      // Synchronously, before the temporary file is open: the moment the old code crashed.
      source.destroy(new Error("socket hang up"));
      expect((await failure(p)).kind).toBe("aborted");
      const early = new PassThrough();
      early.destroy();
      expect((await failure(receiveBody(early, { tmpPath, declared: 1 }))).kind).toBe("aborted");
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      process.off("uncaughtException", onUncaught);
    }
    expect(unhandled).toEqual([]);
    expect(existsSync(tmpPath)).toBe(false);
  });

  it("refuses to overwrite an existing temporary file", async () => {
    const tmpPath = join(dir, "e.part");
    await receiveBody(Readable.from([Buffer.from("x")]), { tmpPath, declared: 1 });
    const err = await failure(
      receiveBody(Readable.from([Buffer.from("y")]), { tmpPath, declared: 1 }),
    );
    expect(err.kind).toBe("io");
  });

  it("answers the crc32 of bodies spanning many of the CRC thread's batches, resumed ones too", async () => {
    // Pieces of odd sizes, so batch edges fall inside pieces; the CRC is computed on a thread.
    const body = Buffer.alloc(3 * 1048576 + 12345);
    for (let i = 0; i < body.length; i++) body[i] = (i * 7919) % 251;
    const pieces: Buffer[] = [];
    for (let at = 0, n = 1; at < body.length; at += n, n = (n * 31 + 17) % 200_000)
      pieces.push(body.subarray(at, Math.min(body.length, at + n)));
    const whole = await receiveBody(Readable.from(pieces), {
      tmpPath: join(dir, "m.part"),
      declared: body.length,
    });
    expect(whole.crc32).toBe(crc32(body));
    // A resumed part: the CRC goes on from the one of the bytes already stored.
    const head = body.subarray(0, 1048576 + 3);
    const tail = body.subarray(head.length);
    const got = await receiveBody(Readable.from([tail]), {
      tmpPath: join(dir, "r.part"),
      declared: body.length,
      resume: {
        offset: head.length,
        hash: createHash("sha256").update(head),
        crc: crc32(head),
      },
    });
    expect(got.crc32).toBe(crc32(body));
    expect(got.sha256).toBe(createHash("sha256").update(body).digest("hex"));
  });

  it("gives checkpoints the crc32 of exactly the bytes before their offset", async () => {
    const size = 70 * 1048576;
    const piece = Buffer.alloc(65536);
    for (let i = 0; i < piece.length; i++) piece[i] = (i * 13) % 256;
    const points: ResumePoint[] = [];
    const got = await receiveBody(
      Readable.from(Array.from({ length: size / piece.length }, () => piece)),
      {
        tmpPath: join(dir, "c.part"),
        declared: size,
        resume: { offset: 0, hash: createHash("sha256"), crc: 0 },
        onCheckpoint: (p) => points.push(p),
      },
    );
    expect(points.length).toBeGreaterThan(0);
    for (const p of points) {
      let want = 0;
      for (let at = 0; at < p.offset; at += piece.length) want = crc32(piece, want);
      expect(p.offset % piece.length).toBe(0);
      expect(p.crc >>> 0).toBe(want >>> 0);
    }
    let all = 0;
    for (let at = 0; at < size; at += piece.length) all = crc32(piece, all);
    expect(got.crc32).toBe(all >>> 0);
  });
});

describe("CrcStream", () => {
  it.each([
    ["on its thread", true],
    ["inline (one processor)", false],
  ])("answers the running crc32 at any point, and nothing once closed: %s", async (_, onThread) => {
    const data = Buffer.alloc(1300 * 1024);
    for (let i = 0; i < data.length; i++) data[i] = (i * 101) % 253;
    const c = new CrcStream(crc32("start"), onThread);
    let at = 0;
    for (const n of [1, 70_000, 600_000, 3, 524_288]) {
      await c.update(data.subarray(at, at + n));
      at += n;
      expect(await c.value()).toBe(crc32(data.subarray(0, at), crc32("start")));
    }
    await c.update(data.subarray(at));
    expect(await c.value()).toBe(crc32(data, crc32("start")));
    c.close();
    await expect(c.value()).rejects.toThrow(/closed/);
  });
});
