import express, { type RequestHandler } from "express";
import { clientIp } from "./client-ip.js";
import { HttpError } from "./errors.js";

/**
 * JSON bodies are read whole into memory before a route sees them. Without a bound, a device
 * that opens many requests, declares a large body and never finishes it held that memory for
 * as long as it liked: 300 such requests grew the parcel service by 300 MiB, 600 the proxy
 * service by 1 GiB. So every JSON body the services read counts against a budget for the
 * whole process and one for its client, for what it declares (its `Content-Length`, or the
 * route's limit when it does not say), from before its first byte is read until it is read
 * or dropped; and it has a deadline.
 */
export interface BodyBudgetLimits {
  /** Bytes of JSON bodies being read at once in the whole process. */
  totalBytes: number;
  /** Bytes of JSON bodies being read at once for one client address. */
  perClientBytes: number;
  /** A body not read whole by then is dropped (408), its connection closed. */
  deadlineMs: number;
}

/**
 * 32 MiB for the process, 4 MiB for one device: the pages' bodies are a few kilobytes, the
 * largest (a proxy backup restored) at most 2 MiB, so a person never meets the limits, while
 * one device can hold at most 4 MiB and it takes eight to hold them all. 30 s for a body
 * that a LAN delivers in milliseconds.
 */
export const BODY_BUDGET: BodyBudgetLimits = {
  totalBytes: 32 * 1024 * 1024,
  perClientBytes: 4 * 1024 * 1024,
  deadlineMs: 30_000,
};

/** Bytes reserved now, in the whole process and by client address. */
export class BodyBudget {
  private total = 0;
  private readonly byClient = new Map<string, number>();

  constructor(readonly limits: BodyBudgetLimits = BODY_BUDGET) {}

  /** Reserves `bytes` for `client`; a release function, or null when either budget is spent. */
  reserve(client: string, bytes: number): (() => void) | null {
    const mine = this.byClient.get(client) ?? 0;
    if (this.total + bytes > this.limits.totalBytes) return null;
    if (mine + bytes > this.limits.perClientBytes) return null;
    this.total += bytes;
    this.byClient.set(client, mine + bytes);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total -= bytes;
      const left = (this.byClient.get(client) ?? 0) - bytes;
      if (left > 0) this.byClient.set(client, left);
      else this.byClient.delete(client);
    };
  }

  /** What is reserved now (for tests and the benchmarks). */
  inUse(): { total: number; clients: number } {
    return { total: this.total, clients: this.byClient.size };
  }
}

/** The one budget of the process: both services' JSON bodies count against it. */
export const processBodyBudget = new BodyBudget();

/** A body's declared size: its `Content-Length`, or `limit` when it has none (chunked). */
function declaredBytes(header: string | undefined, limit: number): number {
  if (header === undefined || !/^\d+$/.test(header)) return limit;
  return Math.min(Number(header), limit);
}

/**
 * The JSON body parser of a service's routes (`limit` bytes at most, any content type), inside
 * the budget and the deadline. A request over budget is answered 503 `request.busy` with
 * `Retry-After` before a byte of its body is read; one over the deadline 408
 * `request.body_timeout`, and its connection is closed (what it sent is not read on).
 */
export function budgetedJson(
  limit: number,
  budget: BodyBudget = processBodyBudget,
): RequestHandler {
  const parse = express.json({ limit, type: () => true });
  return (req, res, next) => {
    const bytes = declaredBytes(req.headers["content-length"], limit);
    // No body to read (a GET, or a length of 0): nothing to hold.
    if (bytes === 0 || (!req.headers["transfer-encoding"] && !req.headers["content-length"])) {
      return parse(req, res, next);
    }
    const release = budget.reserve(clientIp(req), bytes);
    if (!release) {
      res.setHeader("Connection", "close");
      return next(
        new HttpError(503, "request.busy", "Too many requests are being read at once", {
          headers: { "Retry-After": "5" },
        }),
      );
    }
    const timer = setTimeout(() => {
      done();
      if (res.headersSent) return void req.socket.destroy();
      res.setHeader("Connection", "close");
      next(new HttpError(408, "request.body_timeout", "The request body did not arrive in time"));
      // Whatever the client still sends is not read: the answer goes out, then the socket.
      res.once("finish", () => req.socket.destroy());
    }, budget.limits.deadlineMs);
    timer.unref();
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      release();
    };
    req.once("close", done);
    res.once("close", done);
    parse(req, res, (err?: unknown) => {
      if (settled) return;
      done();
      next(err);
    });
  };
}
