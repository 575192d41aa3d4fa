import { createHash } from "node:crypto";
import http from "node:http";
import { percentile } from "./lib.js";
import type { Measure } from "./load-protocol.js";

/** HTTP client pieces of the load benchmark: timed requests, cookies, per-kind statistics. */

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  bytes: number;
  ms: number;
  /** The body when `keep` was asked for, and of any answer that is not 2xx. */
  body: Buffer;
  /** sha256 of the body when `hash` was asked for. */
  sha256: string;
  /** The request was sent again once: its reused connection was closed before any answer. */
  retried: boolean;
}

export interface CallOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  keep?: boolean;
  hash?: boolean;
  agent: http.Agent;
}

/** A keep-alive agent with a socket for each concurrent client. */
export function agentFor(clients: number): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets: clients, maxFreeSockets: clients });
}

/** Socket errors of a kept-alive connection the server closed while the request was sent. */
const STALE = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED"]);

/**
 * One request; rejects only on a socket error (any status resolves). A request sent on a
 * reused keep-alive connection that the server closed at that moment (its keep-alive timeout
 * runs from when it wrote the last answer, which a starved client may read seconds later) is
 * sent once more on a new connection, as browsers and curl do; `retried` says so.
 */
export async function call(url: string, opts: CallOptions): Promise<Answer> {
  const start = performance.now();
  try {
    return await attempt(url, opts, start);
  } catch (err) {
    if (!(err instanceof StaleConnection)) throw err;
    // The time counts from the first attempt: the lost connection is part of the wait.
    return { ...(await attempt(url, opts, start)), retried: true };
  }
}

class StaleConnection extends Error {}

function attempt(url: string, opts: CallOptions, start: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers = { ...opts.headers };
    if (opts.body !== undefined) headers["content-length"] = String(Buffer.byteLength(opts.body));
    const req = http.request(url, { method: opts.method ?? "GET", headers, agent: opts.agent });
    let answered = false;
    req.on("error", (err: NodeJS.ErrnoException) => {
      const stale = req.reusedSocket && !answered && STALE.has(err.code ?? "");
      reject(stale ? new StaleConnection(err.message) : err);
    });
    req.on("response", (res) => {
      answered = true;
      let bytes = 0;
      const chunks: Buffer[] = [];
      const hash = opts.hash ? createHash("sha256") : null;
      // Error answers are kept (they are small) so their message can be reported.
      const keep = opts.keep || (res.statusCode ?? 0) >= 300;
      res.on("data", (c: Buffer) => {
        bytes += c.length;
        if (keep && bytes <= 65536) chunks.push(c);
        hash?.update(c);
      });
      res.on("error", reject);
      // A response cut off mid-body ends in 'aborted'/'close' without 'end'.
      res.on("close", () => {
        if (!res.complete) reject(Object.assign(new Error("response cut off"), { code: "CUT" }));
      });
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          bytes,
          ms: performance.now() - start,
          body: Buffer.concat(chunks),
          sha256: hash ? hash.digest("hex") : "",
          retried: false,
        }),
      );
    });
    req.end(opts.body);
  });
}

/** The `name=value` pairs of an answer's Set-Cookie headers, merged into `jar`. */
export function takeCookies(jar: Map<string, string>, answer: Answer): void {
  for (const line of answer.headers["set-cookie"] ?? []) {
    const pair = line.split(";")[0];
    const eq = pair.indexOf("=");
    if (eq > 0) jar.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
}

export function cookieHeader(jar: Map<string, string>): string {
  return [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
}

/** Statistics of one kind of request. */
export class Recorder {
  private readonly times: number[] = [];
  private bytes = 0;
  private errors = 0;
  private retried = 0;
  private readonly reasons: Record<string, number> = {};

  /** `timed` false: the successes are counted, their times mean nothing (shown as "-"). */
  constructor(
    readonly name: string,
    private readonly timed = true,
  ) {}

  /** Counts another recorder's errors as this one's (its timings are not taken). */
  takeErrors(other: Recorder): void {
    this.errors += other.errors;
    for (const [reason, n] of Object.entries(other.reasons))
      this.reasons[reason] = (this.reasons[reason] ?? 0) + n;
  }

  ok(ms: number, bytes: number): void {
    this.times.push(ms);
    this.bytes += bytes;
  }

  fail(reason: string): void {
    this.errors++;
    this.reasons[reason] = (this.reasons[reason] ?? 0) + 1;
  }

  /**
   * Records an answer: 2xx with `check` passing is a success, anything else an error.
   * `bytes` is what the request moved (the answer's body unless given, e.g. an upload's).
   */
  answer(a: Answer, check: (a: Answer) => string | null = () => null, bytes = a.bytes): boolean {
    if (a.retried) this.retried++;
    if (a.status < 200 || a.status >= 300) {
      this.fail(`HTTP ${a.status}${errorText(a)}`);
      return false;
    }
    const problem = check(a);
    if (problem) {
      this.fail(problem);
      return false;
    }
    this.ok(a.ms, bytes);
    return true;
  }

  socketError(err: unknown): void {
    const code = (err as { code?: unknown }).code;
    this.fail(typeof code === "string" ? code : String(err));
  }

  summary(): Measure {
    const has = this.timed && this.times.length > 0;
    return {
      name: this.name,
      count: this.times.length,
      bytes: this.bytes,
      p50: has ? percentile(this.times, 50) : null,
      p99: has ? percentile(this.times, 99) : null,
      errors: this.errors,
      reasons: this.reasons,
      retried: this.retried,
    };
  }
}

/** The service's error message, when the answer kept its body and carries one. */
function errorText(a: Answer): string {
  if (a.body.length === 0) return "";
  try {
    const parsed = JSON.parse(a.body.toString()) as { error?: unknown; message?: unknown };
    const text = parsed.error ?? parsed.message;
    return typeof text === "string" ? ` (${text.slice(0, 80)})` : "";
  } catch {
    return "";
  }
}
