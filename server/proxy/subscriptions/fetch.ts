import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import tls from "node:tls";
import zlib from "node:zlib";
import type { Readable } from "node:stream";
import type { SubscriptionUsage } from "../types.js";
import { SubscriptionError } from "./errors.js";
import { badTarget, networkFailure, timeoutFailure, tooLarge } from "./fetch-errors.js";
import { parseContentDisposition, parseUpdateInterval, parseUserinfo } from "./userinfo.js";

/** Providers pick the Clash/mihomo format for clients that say `clash.meta`. */
export const DEFAULT_USER_AGENT = "clash.meta/v1.19.12 mihomo/1.19.12";
const MAX_REDIRECTS = 5;

export interface FetchOptions {
  timeoutMs?: number;
  maxBytes?: number;
  userAgent?: string;
  signal?: AbortSignal;
  /** Extra trusted certificate authorities (PEM), for feeds behind a private CA. */
  ca?: string | Buffer | Array<string | Buffer>;
  /**
   * An HTTP proxy to go through (the running core's mixed port): plain `http` targets are
   * asked of it by absolute URI, `https` ones through a CONNECT tunnel.
   */
  proxy?: ProxyAddress;
}

export interface ProxyAddress {
  host: string;
  port: number;
}

export interface FetchedSubscription {
  body: Buffer;
  usage: SubscriptionUsage | null;
  updateIntervalHours: number | null;
  filename: string | null;
}

function parseTarget(raw: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw badTarget(base, "invalid");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw badTarget(base, "scheme");
  return url;
}

function decoder(
  encoding: string | undefined,
): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | null {
  switch ((encoding ?? "").trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip();
    case "deflate":
      return zlib.createInflate();
    case "br":
      return zlib.createBrotliDecompress();
    default:
      return null;
  }
}

interface Attempt {
  redirect: URL | null;
  result: FetchedSubscription | null;
}

/**
 * Downloads a subscription: up to 5 redirects (http/https only), one overall deadline for
 * the whole exchange, a size limit checked while streaming, non-2xx answers are errors.
 * Every failure is a SubscriptionError with an English message, a code and its values.
 */
export async function fetchSubscription(
  url: string,
  options: FetchOptions = {},
): Promise<FetchedSubscription> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxBytes = options.maxBytes ?? 16 * 1024 * 1024;
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  const outer = options.signal;
  if (outer?.aborted)
    throw new SubscriptionError(
      "subscription.cancelled",
      "The subscription download was cancelled",
    );

  const abort = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, timeoutMs);
  const onOuterAbort = (): void => abort.abort();
  outer?.addEventListener("abort", onOuterAbort, { once: true });

  const fail = (err: unknown): SubscriptionError => {
    if (timedOut) {
      return timeoutFailure(timeoutMs, err);
    }
    if (outer?.aborted) {
      return new SubscriptionError(
        "subscription.cancelled",
        "The subscription download was cancelled",
        { cause: err },
      );
    }
    if (err instanceof SubscriptionError) return err;
    return networkFailure(err);
  };

  try {
    let target = parseTarget(url);
    for (let hop = 0; ; hop++) {
      const attempt = await request(target, {
        userAgent,
        maxBytes,
        signal: abort.signal,
        ca: options.ca,
        proxy: options.proxy,
      }).catch((err: unknown) => {
        throw fail(err);
      });
      if (attempt.result) return attempt.result;
      if (!attempt.redirect)
        throw new SubscriptionError(
          "subscription.no_answer",
          "The subscription server gave no answer",
        );
      if (hop >= MAX_REDIRECTS) {
        throw new SubscriptionError(
          "subscription.redirects",
          "The subscription server redirected too many times",
        );
      }
      target = attempt.redirect;
    }
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener("abort", onOuterAbort);
  }
}

/** How one attempt ends: with the answer, or with an error the caller turns into its own. */
interface Settle {
  resolve: (attempt: Attempt) => void;
  reject: (err: unknown) => void;
}

/** One GET of one target, however it goes out (direct, through the proxy, or tunnelled). */
interface Exchange extends Settle {
  target: URL;
  headers: http.OutgoingHttpHeaders;
  ca: Array<string | Buffer> | undefined;
  signal: AbortSignal;
  handle: (res: http.IncomingMessage) => void;
  send: (req: http.ClientRequest) => void;
}

function request(
  target: URL,
  opts: {
    userAgent: string;
    maxBytes: number;
    signal: AbortSignal;
    ca: FetchOptions["ca"];
    proxy?: ProxyAddress;
  },
): Promise<Attempt> {
  return new Promise<Attempt>((resolve, reject) => {
    const settle: Settle = { resolve, reject };
    const exchange: Exchange = {
      ...settle,
      target,
      headers: {
        "user-agent": opts.userAgent,
        accept: "*/*",
        "accept-encoding": "gzip, deflate, br",
      },
      ca:
        opts.ca && target.protocol === "https:"
          ? [...tls.rootCertificates, ...(Array.isArray(opts.ca) ? opts.ca : [opts.ca])]
          : undefined,
      signal: opts.signal,
      handle: (res) => onAnswer(res, target, opts.maxBytes, settle),
      send: (req) => {
        req.on("error", reject);
        req.end();
      },
    };
    const { proxy } = opts;
    if (!proxy) return sendDirect(exchange);
    // A connection of its own each time (no keep-alive pool): a proxy connection that carried
    // one request may have become a tunnel to that server.
    if (target.protocol === "http:") return sendThroughProxy(exchange, proxy);
    sendThroughTunnel(exchange, proxy);
  });
}

function sendDirect(x: Exchange): void {
  const lib = x.target.protocol === "https:" ? https : http;
  const reqOptions: https.RequestOptions = { method: "GET", headers: x.headers, signal: x.signal };
  if (x.ca) reqOptions.ca = x.ca;
  x.send(lib.request(x.target, reqOptions, x.handle));
}

/** Plain http through the proxy: the target asked of it by absolute URI. */
function sendThroughProxy(x: Exchange, proxy: ProxyAddress): void {
  const path = x.target.href;
  const { signal } = x;
  const via = { host: proxy.host, port: proxy.port, method: "GET", path, signal, agent: false };
  x.send(http.request({ ...via, headers: { ...x.headers, host: x.target.host } }, x.handle));
}

/** https through the proxy: a CONNECT tunnel, then TLS with the feed's own name inside it. */
function sendThroughTunnel(x: Exchange, proxy: ProxyAddress): void {
  const { target, signal } = x;
  const authority = `${target.hostname}:${target.port || 443}`;
  const connect = http.request({
    host: proxy.host,
    port: proxy.port,
    method: "CONNECT",
    path: authority,
    headers: { host: authority },
    signal,
    agent: false,
  });
  connect.on("connect", (res: http.IncomingMessage, socket: import("node:net").Socket) => {
    if (res.statusCode !== 200) {
      socket.destroy();
      x.reject(Object.assign(new Error(`proxy answered ${res.statusCode}`), { code: "EPROXY" }));
      return;
    }
    const name = target.hostname.replace(/^\[|\]$/g, "");
    const secure = tls.connect({ socket, servername: isIP(name) ? undefined : name, ca: x.ca });
    x.send(
      https.request(
        target,
        { method: "GET", headers: x.headers, signal, createConnection: () => secure },
        x.handle,
      ),
    );
  });
  x.send(connect);
}

/** The server's answer: a redirect to follow, a refusal, or the body to read. */
function onAnswer(res: http.IncomingMessage, target: URL, maxBytes: number, settle: Settle): void {
  const status = res.statusCode ?? 0;
  if (status >= 300 && status < 400 && status !== 304) {
    res.resume();
    const location = res.headers.location;
    if (!location) {
      settle.reject(
        new SubscriptionError(
          "subscription.redirect_no_location",
          `The subscription server answered ${status} without a location`,
          { params: { status } },
        ),
      );
      return;
    }
    try {
      settle.resolve({ redirect: parseTarget(location, target), result: null });
    } catch (err) {
      settle.reject(err);
    }
    return;
  }
  if (status < 200 || status >= 300) {
    res.resume();
    settle.reject(
      new SubscriptionError(
        "subscription.fetch_status",
        `The subscription server answered ${status}`,
        { params: { status } },
      ),
    );
    return;
  }
  readBody(res, maxBytes, settle);
}

/**
 * Reads a 2xx body, decoded, into memory: refused as soon as it (or its declared length, when
 * not compressed) passes `maxBytes`; a body cut short is a connection failure.
 */
function readBody(res: http.IncomingMessage, maxBytes: number, settle: Settle): void {
  const { resolve, reject } = settle;
  const declared = Number(res.headers["content-length"]);
  const unzip = decoder(res.headers["content-encoding"]);
  if (!unzip && Number.isFinite(declared) && declared > maxBytes) {
    res.destroy();
    reject(tooLarge(maxBytes));
    return;
  }
  const source: Readable = unzip ? res.pipe(unzip) : res;
  if (unzip) res.on("error", (err) => unzip.destroy(err));
  const chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  source.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) {
      settled = true;
      source.destroy();
      res.destroy();
      reject(tooLarge(maxBytes));
      return;
    }
    chunks.push(chunk);
  });
  source.on("error", (err) => {
    if (settled) return;
    settled = true;
    if (unzip && !(err as { code?: string }).code?.startsWith("ECONN")) {
      reject(
        new SubscriptionError(
          "subscription.decompress",
          "The subscription could not be decompressed",
          { cause: err },
        ),
      );
    } else reject(err);
  });
  res.on("aborted", () => {
    if (settled) return;
    settled = true;
    reject(Object.assign(new Error("aborted"), { code: "ECONNRESET" }));
  });
  source.on("end", () => {
    if (settled) return;
    if (!res.complete) {
      settled = true;
      reject(Object.assign(new Error("incomplete body"), { code: "ECONNRESET" }));
      return;
    }
    settled = true;
    resolve({
      redirect: null,
      result: {
        body: Buffer.concat(chunks, size),
        usage: parseUserinfo(res.headers["subscription-userinfo"]),
        updateIntervalHours: parseUpdateInterval(res.headers["profile-update-interval"]),
        filename: parseContentDisposition(res.headers["content-disposition"]),
      },
    });
  });
}
