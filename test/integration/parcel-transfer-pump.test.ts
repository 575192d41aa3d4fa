import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { downloadReadSize, pump, pumpFile } from "../../server/parcel/http/transfer.js";

/** What the server side saw of one body: how `pump` ended and the bytes it counted. */
interface Served {
  outcome: Promise<"done" | Error>;
  counted: () => number;
  source: Readable;
}

/** What the client received: the bytes, and whether the response ended whole or was cut. */
interface Received {
  bytes: Buffer;
  whole: boolean;
}

let server: http.Server | null = null;

afterEach(async () => {
  if (server) {
    server.closeAllConnections();
    await new Promise((r) => server!.close(r));
    server = null;
  }
});

/** A real server that answers every request with `source`, announcing `length` bytes. */
/**
 * A real server that answers every request with `send` (which counts what it writes through
 * the function it is given), announcing `length` bytes.
 */
async function serveWith(
  length: number,
  send: (res: http.ServerResponse, count: (n: number) => void, served: Served) => Promise<void>,
): Promise<[number, Served]> {
  let counted = 0;
  let settle!: (v: "done" | Error) => void;
  const outcome = new Promise<"done" | Error>((r) => (settle = r));
  const served: Served = { outcome, counted: () => counted, source: new Readable() };
  server = http.createServer((_req, res) => {
    res.setHeader("Content-Length", String(length));
    send(res, (n) => (counted += n), served).then(
      () => settle("done"),
      (err: Error) => settle(err),
    );
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return [(server.address() as AddressInfo).port, served];
}

/** Serves `length` bytes of the stream `makeSource` makes, with pump. */
function serve(makeSource: () => Readable, length: number): Promise<[number, Served]> {
  return serveWith(length, (res, count, served) => {
    served.source = makeSource();
    return pump(served.source, res, length, count);
  });
}

function fetchBody(port: number): Promise<Received> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    const req = http.get({ host: "127.0.0.1", port, agent: false }, (res) => {
      res.on("data", (c: Buffer) => parts.push(c));
      // A cut body ends in "error" (aborted), a whole one in "end"; "close" follows both.
      res.on("error", () => undefined);
      res.on("close", () => resolve({ bytes: Buffer.concat(parts), whole: res.complete }));
    });
    // Cut before the headers left the server: nothing arrived.
    req.on("error", () => resolve({ bytes: Buffer.concat(parts), whole: false }));
  });
}

/** A client that goes away as soon as the first piece of the body arrives. */
function leaveAfterFirstPiece(port: number): Promise<void> {
  return new Promise((resolve) => {
    const req = http.get({ host: "127.0.0.1", port, agent: false }, (res) => {
      res.once("data", () => {
        req.destroy();
        resolve();
      });
    });
    req.on("error", () => undefined);
  });
}

/** `n` chunks of `size` bytes each, every byte telling its position. */
function chunks(n: number, size: number): Buffer[] {
  return Array.from({ length: n }, (_, i) => Buffer.alloc(size, i % 251));
}

describe("the download body pump", () => {
  it("sends every byte of a many-chunk body in order and counts each one", async () => {
    const parts = chunks(40, 256 * 1024);
    const length = parts.reduce((a, b) => a + b.length, 0);
    const [port, served] = await serve(() => Readable.from(parts), length);
    const got = await fetchBody(port);
    expect(got.whole).toBe(true);
    expect(got.bytes.equals(Buffer.concat(parts))).toBe(true);
    expect(await served.outcome).toBe("done");
    expect(served.counted()).toBe(length);
  });

  it("sends an empty body as a complete answer", async () => {
    const [port, served] = await serve(() => Readable.from([]), 0);
    const got = await fetchBody(port);
    expect(got).toEqual({ bytes: Buffer.alloc(0), whole: true });
    expect(await served.outcome).toBe("done");
  });

  it("cuts the connection when the source ends before the announced length", async () => {
    const parts = chunks(3, 1000);
    const [port, served] = await serve(() => Readable.from(parts), 5000);
    const got = await fetchBody(port);
    expect(got.whole).toBe(false);
    const outcome = await served.outcome;
    expect(outcome).toBeInstanceOf(Error);
    expect((outcome as Error).message).toBe("the body ended after 3000 of 5000 bytes");
    expect(served.counted()).toBe(3000);
  });

  it("never sends more than announced when the source is longer", async () => {
    const parts = chunks(3, 1000);
    const [port, served] = await serve(() => Readable.from(parts), 2500);
    const got = await fetchBody(port);
    expect(got.whole).toBe(false);
    expect(got.bytes.length).toBeLessThanOrEqual(2500);
    const outcome = await served.outcome;
    expect((outcome as Error).message).toBe("the body is longer than announced");
    expect(served.counted()).toBe(2000);
  });

  it("cuts the connection and reports the error when the source fails mid-body", async () => {
    const [port, served] = await serve(
      () =>
        Readable.from(
          (async function* () {
            yield Buffer.alloc(1000, 1);
            throw new Error("disk read failed");
          })(),
        ),
      4000,
    );
    const got = await fetchBody(port);
    expect(got.whole).toBe(false);
    expect(((await served.outcome) as Error).message).toBe("disk read failed");
    expect(served.counted()).toBe(1000);
  });

  it("stops reading the source when the client leaves mid-body", async () => {
    // A source that never ends on its own: only the client's leaving can stop the pump.
    let made = 0;
    const endless = (): Readable =>
      new Readable({
        read() {
          made++;
          this.push(Buffer.alloc(64 * 1024, 7));
        },
      });
    const [port, served] = await serve(endless, 1024 * 1024 * 1024);
    await leaveAfterFirstPiece(port);
    const outcome = await served.outcome;
    expect((outcome as Error).message).toBe("the client left before the last byte");
    expect(served.source.destroyed).toBe(true);
    expect(made).toBeGreaterThan(0);
  });
});

describe("the read size of a download", () => {
  it("reads 512 KiB at a time while few downloads run, and shares a budget when many do", () => {
    expect(downloadReadSize(1)).toBe(512 * 1024);
    expect(downloadReadSize(8)).toBe(512 * 1024);
    expect(downloadReadSize(16)).toBe(256 * 1024);
    expect(downloadReadSize(32)).toBe(128 * 1024);
    expect(downloadReadSize(64)).toBe(64 * 1024);
    // Never below 64 KiB, however many there are; a count of 0 is taken as one.
    expect(downloadReadSize(10_000)).toBe(64 * 1024);
    expect(downloadReadSize(0)).toBe(512 * 1024);
    // What all of them may hold stays within 8 MiB until the floor is reached.
    for (const n of [1, 2, 8, 9, 17, 31, 33, 64])
      expect(downloadReadSize(n) * 2 * n).toBeLessThanOrEqual(8 * 1024 * 1024);
  });
});

describe("the download of an open file", () => {
  const dir = mkdtempSync(join(tmpdir(), "gh-pump-file-"));

  /** Serves bytes 0..length-1 of `path` with pumpFile. */
  const serveFile = (path: string, length: number): Promise<[number, Served]> =>
    serveWith(length, async (res, count) => {
      const file = await open(path, "r");
      try {
        await pumpFile(file, res, length, count);
      } finally {
        await file.close();
      }
    });

  it("sends the file byte for byte to a reader that keeps stopping, reusing its buffers", async () => {
    // Random bytes: a buffer written over before the socket sent it would show.
    const data = randomBytes(6 * 1024 * 1024 + 4321);
    const path = join(dir, "random.bin");
    writeFileSync(path, data);
    const [port, served] = await serveFile(path, data.length);
    const parts: Buffer[] = [];
    const whole = await new Promise<boolean>((resolve) => {
      http.get({ host: "127.0.0.1", port, agent: false }, (res) => {
        res.on("data", (c: Buffer) => {
          parts.push(c);
          // Stop reading now and then, so the sender waits on a full socket.
          if (parts.length % 8 === 0) {
            res.pause();
            setTimeout(() => res.resume(), 5);
          }
        });
        res.on("end", () => resolve(res.complete));
      });
    });
    expect(whole).toBe(true);
    expect(Buffer.concat(parts).equals(data)).toBe(true);
    expect(await served.outcome).toBe("done");
    expect(served.counted()).toBe(data.length);
  });

  it("answers an empty file as a complete empty body", async () => {
    const path = join(dir, "empty.bin");
    writeFileSync(path, "");
    const [port, served] = await serveFile(path, 0);
    const got = await fetchBody(port);
    expect(got.whole).toBe(true);
    expect(got.bytes.length).toBe(0);
    expect(await served.outcome).toBe("done");
  });

  it("cuts the connection when the file is shorter than announced", async () => {
    const path = join(dir, "short.bin");
    writeFileSync(path, Buffer.alloc(1000, 5));
    const [port, served] = await serveFile(path, 5000);
    const got = await fetchBody(port);
    expect(got.whole).toBe(false);
    expect(got.bytes.length).toBe(1000);
    expect(((await served.outcome) as Error).message).toBe(
      "the file ended after 1000 of 5000 bytes",
    );
    expect(served.counted()).toBe(1000);
  });

  it("stops when the client leaves mid-body", async () => {
    const path = join(dir, "big.bin");
    writeFileSync(path, Buffer.alloc(32 * 1024 * 1024, 9));
    const [port, served] = await serveFile(path, 32 * 1024 * 1024);
    await leaveAfterFirstPiece(port);
    const outcome = await served.outcome;
    expect((outcome as Error).message).toBe("the client left before the last byte");
    expect(served.counted()).toBeLessThan(32 * 1024 * 1024);
  });
});
