import { randomBytes } from "node:crypto";
import { plainIp } from "./client-ip.js";
import type { RequestHandler, Response } from "express";
import type { ServiceLog } from "../log.js";

/** Response header that names the request in the service's log. */
export const REQUEST_ID_HEADER = "X-Request-Id";
/** Where the route table leaves the pattern of the route that matched (`/uploads/:id`). */
const ROUTE_KEY = "routePattern";
/** Unmatched paths are logged shortened: they are the client's text, not ours. */
const MAX_PATH = 120;

/** The id of the request this response answers ("" before the request log ran). */
export function requestIdOf(res: Response): string {
  const id: unknown = res.locals.requestId;
  return typeof id === "string" ? id : "";
}

/** Records the pattern of the route that matched, as registered (never the raw URL). */
export function markRoute(res: Response, pattern: string): void {
  res.locals[ROUTE_KEY] = pattern;
}

export interface RequestLogOptions {
  /** Prefix of the API the route table's patterns are relative to (`/api/v1`). */
  apiPrefix?: string;
}

/**
 * First middleware of each service: gives every request a fresh random id (a client-sent
 * one is ignored, so a client cannot make its requests look like another's), answers it in
 * `X-Request-Id`, and writes one entry when the exchange ends: on `close`, so a server-sent
 * event stream or a long download is logged once at its end, with `aborted` when the client
 * went away before the response was complete. The URL is logged as the matched route's
 * pattern; without a match, as the path only: a query string can carry a secret.
 */
export function requestLog(log: ServiceLog, options: RequestLogOptions = {}): RequestHandler {
  const apiPrefix = options.apiPrefix ?? "/api/v1";
  return (req, res, next) => {
    const requestId = randomBytes(8).toString("hex");
    const started = process.hrtime.bigint();
    res.locals.requestId = requestId;
    res.setHeader(REQUEST_ID_HEADER, requestId);
    const method = req.method;
    const path = req.path;
    let bytes = 0;
    const count = (chunk: unknown, encoding?: unknown): void => {
      if (typeof chunk === "string")
        bytes += Buffer.byteLength(
          chunk,
          typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8",
        );
      else if (chunk instanceof Uint8Array) bytes += chunk.byteLength;
    };
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    res.write = ((...args: unknown[]) => {
      count(args[0], args[1]);
      return write(...args);
    }) as Response["write"];
    res.end = ((...args: unknown[]) => {
      if (typeof args[0] !== "function") count(args[0], args[1]);
      return end(...args);
    }) as Response["end"];

    res.once("close", () => {
      const pattern: unknown = res.locals[ROUTE_KEY];
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const entry: Record<string, unknown> = {
        requestId,
        method,
        status: res.headersSent ? res.statusCode : null,
        ms: Math.round(ms * 10) / 10,
        bytes,
        ip: plainIp(req.socket.remoteAddress),
      };
      if (typeof pattern === "string") entry.route = apiPrefix + pattern;
      else entry.path = path.length > MAX_PATH ? `${path.slice(0, MAX_PATH)}…` : path;
      if (!res.writableFinished) entry.aborted = true;
      log.info("request", entry);
    });
    next();
  };
}
