import type { Request, Response } from "express";
import type { ServerResponse } from "node:http";
import type { FileHandle } from "node:fs/promises";
import { Readable } from "node:stream";
import { MINUTE_MS } from "../../contract/time-units.js";
import { DomainError } from "../../domain-errors.js";
import { faultPoint } from "../../fault-points.js";
import { HttpError } from "../../http/errors.js";
import { requestIdOf } from "../../http/request-log.js";
import type { ParcelContext } from "../context.js";
import { settleDownload, takeDownload, type TransferPlan } from "../domain/transfer.js";
import { clientIp, pickupActor } from "./identity.js";

/** A download that sends nothing for this long (a stalled reader) is cut. */
const IDLE_MS = 5 * MINUTE_MS;

/** What all downloads together may hold read but not yet sent, roughly (see below). */
const READ_BUDGET = 8 * 1024 * 1024;
const MAX_READ = 512 * 1024;
const MIN_READ = 64 * 1024;

/**
 * The read size for a download while `active` downloads (this one included) are being read.
 * Alone, 512 KiB: that halves the system calls and callbacks of 256 KiB, and 1 MiB measured
 * no faster. Each download holds up to about two reads at once (one being sent, the next one
 * read), so many at a time share a budget instead: 32 parallel downloads of 512 KiB reads
 * grew the service's memory by 50–70 MiB, of 128 KiB reads by about 33 MiB (measured with
 * `npm run bench:transfer -- --gateway`), still moving 800 MB/s together, far above a LAN.
 */
export function downloadReadSize(active: number): number {
  let size = MAX_READ;
  while (size > MIN_READ && size * 2 * Math.max(1, active) > READ_BUDGET) size /= 2;
  return size;
}

/** `Content-Disposition` with an ASCII fallback and the exact name in `filename*` (RFC 6266). */
export function contentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

function setBodyHeaders(res: Response, plan: TransferPlan): void {
  res.status(200);
  res.setHeader("Content-Type", "application/octet-stream");
  res.setHeader("Content-Disposition", contentDisposition(plan.filename));
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Content-Length", String(plan.length));
}

/**
 * Hands `source` to `res` with backpressure, counting each chunk as it is written. No extra
 * stream stage sits in between: each stage adds its own buffering and callbacks per chunk,
 * which cost measurable download speed. Resolves once the response has finished; rejects,
 * cutting the connection, when the body is longer or shorter than announced, the source
 * fails, or the client leaves first. The listeners stay on both streams for their whole
 * life, so a late error is never unhandled.
 */
export function pump(
  source: Readable,
  res: ServerResponse,
  length: number,
  onChunk: (n: number) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = 0;
    let settled = false;
    const fail = (err: Error): void => {
      if (settled) return;
      settled = true;
      source.destroy();
      // A cut connection is the only way to tell the client the body is not whole.
      if (!res.destroyed) res.destroy();
      reject(err);
    };
    source.on("error", fail);
    res.on("error", fail);
    res.on("close", () => {
      if (!res.writableFinished) fail(new Error("the client left before the last byte"));
    });
    res.on("drain", () => source.resume());
    source.on("data", (chunk: Buffer) => {
      if (settled) return;
      seen += chunk.length;
      if (seen > length) return fail(new Error("the body is longer than announced"));
      onChunk(chunk.length);
      if (!res.write(chunk)) source.pause();
    });
    source.on("end", () => {
      if (seen !== length)
        return fail(new Error(`the body ended after ${seen} of ${length} bytes`));
      res.end(() => {
        if (settled) return;
        settled = true;
        resolve();
      });
    });
  });
}

/** Files being read for downloads right now, in this process (their read size depends on it). */
let reading = 0;

/**
 * Sends bytes 0..length-1 of an open file to `res`, reading into two buffers that are used
 * again and again: one is being sent while the next piece is read into the other, and a
 * buffer is read into again only once the socket has finished writing it (the write's
 * callback). Fresh buffers for every read, as a file stream makes them, cost page faults and
 * garbage collection on every piece: reusing two took a 1 GiB download on loopback from
 * about 1300 to 1600–1900 MB/s here (`npm run bench:transfer`; nginx's sendfile: 1400–1700),
 * and a download's memory stays at its two buffers. Counts each piece as it is written; rejects,
 * cutting the connection, when the file is shorter than announced, a read fails, or the
 * client leaves first. Does not close the file.
 */
export async function pumpFile(
  file: FileHandle,
  res: ServerResponse,
  length: number,
  onChunk: (n: number) => void,
): Promise<void> {
  reading++;
  // The client leaving (or the socket failing) rejects whatever the loop waits on. One
  // waiter at a time, released when it settles: racing every wait against one long-lived
  // promise would pile a reaction per piece onto it (memory growing with the file's size).
  let failure: Error | null = null;
  let fail: ((err: Error) => void) | null = null;
  const onClose = (): void => {
    if (res.writableFinished) return;
    failure ??= new Error("the client left before the last byte");
    fail?.(failure);
  };
  const onError = (err: Error): void => {
    failure ??= err;
    fail?.(err);
  };
  res.on("close", onClose);
  res.on("error", onError);
  const guard = <T>(work: Promise<T>): Promise<T> => {
    if (failure) return Promise.reject(failure);
    return new Promise<T>((resolve, reject) => {
      fail = reject;
      work.then(
        (v) => ((fail = null), resolve(v)),
        (err: unknown) => ((fail = null), reject(err as Error)),
      );
    });
  };
  try {
    const size = downloadReadSize(reading);
    const buffers = [Buffer.allocUnsafeSlow(size), Buffer.allocUnsafeSlow(size)];
    let turn = 0;
    let sent: Promise<void> = Promise.resolve();
    for (let at = 0; at < length;) {
      const buffer = buffers[turn];
      turn ^= 1;
      const { bytesRead } = await guard(file.read(buffer, 0, Math.min(size, length - at), at));
      if (bytesRead === 0) throw new Error(`the file ended after ${at} of ${length} bytes`);
      // The other buffer is fully written before this one is handed over: at most one piece
      // is in the socket's hands, which is also the backpressure.
      await guard(sent);
      // The crash tests' "half-way through": the first piece is written, the next is read.
      if (at === size) await faultPoint("parcel.download-mid-body");
      at += bytesRead;
      onChunk(bytesRead);
      sent = new Promise<void>((resolve, reject) =>
        res.write(buffer.subarray(0, bytesRead), (err) => (err ? reject(err) : resolve())),
      );
      sent.catch(() => undefined);
    }
    await guard(sent);
    await guard(new Promise<void>((resolve) => res.end(resolve)));
  } catch (err) {
    if (!res.destroyed) res.destroy();
    throw err;
  } finally {
    res.off("close", onClose);
    res.off("error", onError);
    reading--;
  }
}

/** Lets go of a body that will not (or no longer) be sent. */
async function release(body: Readable | FileHandle): Promise<void> {
  if (body instanceof Readable) body.destroy();
  else await body.close().catch(() => undefined);
}

/**
 * Opens a plan's body. A refusal in the domain's words (a damaged copy) is answered as it is;
 * any other failure is the service's (500, logged by the error handler with its cause).
 */
async function openBody(plan: TransferPlan): Promise<Readable | FileHandle> {
  try {
    return await plan.open();
  } catch (err) {
    if (err instanceof DomainError || err instanceof HttpError) throw err;
    throw new HttpError(500, "download.read_failed", "The file could not be read", {
      cause: err,
    });
  }
}

/**
 * Sends one download. HEAD answers the headers and consumes nothing. GET takes one download
 * first (domain/transfer.ts) and streams with backpressure. Both serve only verified blobs:
 * a damaged one is refused before any byte, and a GET's deduction is then returned. A body that ends before its last
 * byte stays counted; one that never sent a byte is returned.
 */
export async function sendTransfer(
  ctx: ParcelContext,
  req: Request,
  res: Response,
  plan: TransferPlan,
): Promise<void> {
  if (req.method === "HEAD") {
    // The same checks as a download (a damaged copy is refused), without taking one.
    await release(await openBody(plan));
    setBodyHeaders(res, plan);
    res.end();
    return;
  }
  const who = { ip: clientIp(req), actor: pickupActor(ctx, req) };
  takeDownload(ctx, plan, who);
  let gone = false;
  res.on("close", () => {
    if (!res.writableFinished) gone = true;
  });
  let sent = 0;
  let complete = false;
  try {
    const body = await openBody(plan);
    if (gone) {
      await release(body);
      return;
    }
    setBodyHeaders(res, plan);
    const idle = setTimeout(() => res.destroy(), IDLE_MS);
    const counted = (n: number): void => {
      sent += n;
      idle.refresh();
    };
    try {
      if (body instanceof Readable) await pump(body, res, plan.length, counted);
      else await pumpFile(body, res, plan.length, counted);
      complete = true;
    } catch {
      // Cut short (client gone, read error): counted unless nothing was sent, below.
      if (!res.destroyed) res.destroy();
    } finally {
      clearTimeout(idle);
      if (!(body instanceof Readable)) await release(body);
    }
  } finally {
    settleDownload(ctx, plan, who, { complete, sent, requestId: requestIdOf(res) || null });
  }
}
