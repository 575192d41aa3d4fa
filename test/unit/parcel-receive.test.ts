import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { crc32 } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { receiveBody, ReceiveError } from "../../server/parcel/storage/receive.js";

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

  it("treats a source that closes early as aborted and one that stalls as idle", async () => {
    const tmpPath = join(dir, "d.part");
    const aborted = new PassThrough();
    const p1 = receiveBody(aborted, { tmpPath, declared: 100 });
    aborted.write(Buffer.alloc(10));
    setTimeout(() => aborted.destroy(), 20);
    expect((await failure(p1)).kind).toBe("aborted");
    expect(existsSync(tmpPath)).toBe(false);
    const stalled = new PassThrough();
    const p2 = receiveBody(stalled, { tmpPath, declared: 100, idleMs: 50 });
    stalled.write(Buffer.alloc(10));
    expect(await failure(p2)).toMatchObject({ kind: "idle", bytes: 10 });
    expect(existsSync(tmpPath)).toBe(false);
    stalled.destroy();
  });

  it("refuses to overwrite an existing temporary file", async () => {
    const tmpPath = join(dir, "e.part");
    await receiveBody(Readable.from([Buffer.from("x")]), { tmpPath, declared: 1 });
    const err = await failure(
      receiveBody(Readable.from([Buffer.from("y")]), { tmpPath, declared: 1 }),
    );
    expect(err.kind).toBe("io");
  });
});
