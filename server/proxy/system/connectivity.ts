import { connect as netConnect, type Socket } from "node:net";
import { connect as tlsConnect, rootCertificates, type TLSSocket } from "node:tls";
import { performance } from "node:perf_hooks";
import { DomainError } from "../../domain-errors.js";
import type {
  ConnectivityResult as ConnectivityAnswer,
  ConnectivitySite,
} from "../../contract/proxy-system.js";

export type { ConnectivitySite };

export const CONNECTIVITY_SITES: readonly ConnectivitySite[] = [
  { id: "google", name: "Google", url: "https://www.google.com/", category: "global" },
  { id: "youtube", name: "YouTube", url: "https://www.youtube.com/", category: "global" },
  { id: "github", name: "GitHub", url: "https://github.com/", category: "global" },
  { id: "cloudflare", name: "Cloudflare", url: "https://www.cloudflare.com/", category: "global" },
  { id: "openai", name: "OpenAI", url: "https://openai.com/", category: "global" },
  { id: "wikipedia", name: "Wikipedia", url: "https://www.wikipedia.org/", category: "global" },
  { id: "telegram", name: "Telegram", url: "https://telegram.org/", category: "global" },
  { id: "baidu", name: "Baidu", url: "https://www.baidu.com/", category: "domestic" },
  { id: "bilibili", name: "Bilibili", url: "https://www.bilibili.com/", category: "domestic" },
];

/** The site of a connectivity test, by its id; refused as unknown otherwise. */
export function connectivitySite(siteId: string): ConnectivitySite {
  const site = CONNECTIVITY_SITES.find((s) => s.id === siteId);
  if (!site)
    throw new DomainError("not_found", "connectivity.unknown_site", `Unknown site: ${siteId}`, {
      params: { site: siteId },
    });
  return site;
}

/** A fourth connectivity test while three run (they are limited service-wide). */
export const connectivityBusy = () =>
  new DomainError(
    "rate_limited",
    "connectivity.busy",
    "Three connectivity tests are already running; try again shortly",
  );

/** One test's outcome; the route adds when it was checked. */
export type ConnectivityResult = Omit<ConnectivityAnswer, "checkedAt">;

export interface ConnectivityOptions {
  /** The core's mixed port on 127.0.0.1. */
  proxyPort: number;
  /** Extra trusted CA (PEM), added to the system CAs. */
  extraCA?: string;
  timeoutMs?: number;
  /** Receives the raw failure (for the log; it is not shown to people). */
  onFailure?: (err: unknown) => void;
}

class Timeout extends Error {}

/** The proxy answered the CONNECT with something other than 200. */
class TunnelRefused extends Error {
  constructor(readonly status: number) {
    super(`The proxy refused the tunnel (HTTP ${status})`);
  }
}

/** The core's mixed port did not take the connection at all. */
class ProxyDown extends Error {
  constructor(cause: unknown) {
    super("The proxy port does not accept connections", { cause });
  }
}

const CERT_UNTRUSTED = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_UNTRUSTED",
  "CERT_SIGNATURE_FAILURE",
  "CERT_REVOKED",
  "INVALID_CA",
]);

/** A failed test as a sentence and its code; Node's socket and TLS texts stay out of it. */
export function describeFailure(err: unknown, proxyPort: number): { detail: string; code: string } {
  if (err instanceof ProxyDown)
    return {
      detail: `The proxy core does not accept connections on port ${proxyPort}; is it running?`,
      code: "connectivity.proxy_down",
    };
  if (err instanceof TunnelRefused)
    return {
      detail: `The proxy core refused to open the connection (HTTP status ${err.status})`,
      code: "connectivity.tunnel_refused",
    };
  const code = String((err as { code?: unknown } | null)?.code ?? "");
  if (code === "CERT_HAS_EXPIRED" || code === "CERT_NOT_YET_VALID")
    return { detail: "The certificate is out of date", code: "connectivity.cert_expired" };
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID")
    return { detail: "The certificate is for another name", code: "connectivity.cert_name" };
  if (CERT_UNTRUSTED.has(code))
    return { detail: "The certificate is not trusted", code: "connectivity.cert_untrusted" };
  if (code === "ENOTFOUND" || code === "EAI_AGAIN")
    return { detail: "The name could not be resolved", code: "connectivity.dns" };
  if (code === "ECONNREFUSED")
    return { detail: "The connection was refused", code: "connectivity.refused" };
  if (code === "ECONNRESET" || code === "EPIPE")
    return { detail: "The connection was cut off", code: "connectivity.reset" };
  if (code === "EHOSTUNREACH" || code === "ENETUNREACH" || code === "ETIMEDOUT")
    return { detail: "The site cannot be reached from here", code: "connectivity.unreachable" };
  if (err instanceof Error && /closed before a response/.test(err.message))
    return {
      detail: "The connection closed before the site answered",
      code: "connectivity.closed",
    };
  if (err instanceof Error && /^Not an HTTP response|too large/.test(err.message))
    return { detail: "The answer was not HTTP", code: "connectivity.not_http" };
  return { detail: "The connection failed", code: "connectivity.failed" };
}

/** Reads from `socket` until the end of an HTTP head; returns the head's status code. */
function readHead(socket: Socket | TLSSocket): Promise<number> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      const end = buf.indexOf("\r\n\r\n");
      if (end < 0) {
        if (buf.length > 64 * 1024) done(new Error("The response head is too large"));
        return;
      }
      const line = buf.subarray(0, buf.indexOf("\r\n")).toString("latin1");
      const m = /^HTTP\/\d(?:\.\d)? (\d{3})/.exec(line);
      if (!m) return done(new Error(`Not an HTTP response: ${line.slice(0, 80)}`));
      done(null, Number(m[1]));
    };
    const onEnd = () => done(new Error("The connection closed before a response"));
    const onError = (err: Error) => done(err);
    const done = (err: Error | null, status = 0) => {
      socket.off("data", onData);
      socket.off("end", onEnd);
      socket.off("error", onError);
      if (err) reject(err);
      else resolve(status);
    };
    socket.on("data", onData);
    socket.once("end", onEnd);
    socket.once("error", onError);
  });
}

/** What one attempt leaves for its caller: the sockets to close and whether TLS verified. */
interface AttemptState {
  sockets: Socket[];
  tlsVerified: boolean;
}

/** One attempt: CONNECT through the mixed port, TLS, one GET; answers the HTTP status. */
async function fetchThroughProxy(
  url: URL,
  opts: ConnectivityOptions,
  state: AttemptState,
): Promise<number> {
  const host = url.hostname;
  const port = Number(url.port || 443);
  const raw = netConnect({ host: "127.0.0.1", port: opts.proxyPort });
  state.sockets.push(raw);
  // Each phase below listens for errors itself; this keeps a late one from going unheard.
  raw.on("error", () => undefined);
  await new Promise<void>((resolve, reject) => {
    const down = (err: Error) => reject(new ProxyDown(err));
    raw.once("error", down);
    raw.once("connect", () => {
      raw.off("error", down);
      resolve();
    });
  });
  raw.write(`CONNECT ${host}:${port} HTTP/1.1\r\nHost: ${host}:${port}\r\n\r\n`);
  const tunnel = await readHead(raw);
  if (tunnel !== 200) throw new TunnelRefused(tunnel);
  const ca = opts.extraCA ? [...rootCertificates, opts.extraCA] : undefined;
  const tls = tlsConnect({ socket: raw, servername: host, ca, rejectUnauthorized: true });
  state.sockets.push(tls);
  tls.on("error", () => undefined);
  await new Promise<void>((resolve, reject) => {
    tls.once("secureConnect", () => resolve());
    tls.once("error", reject);
  });
  state.tlsVerified = tls.authorized;
  tls.write(
    `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${host}\r\nUser-Agent: Gatehouse-connectivity/1\r\nAccept: */*\r\nConnection: close\r\n\r\n`,
  );
  return readHead(tls);
}

/**
 * Fetches the site through the core's mixed port: an HTTP CONNECT tunnel, then TLS
 * with certificate verification, then one GET. Any HTTP answer below 500 means the
 * path through the proxy works.
 */
export async function testSite(
  site: ConnectivitySite,
  opts: ConnectivityOptions,
): Promise<ConnectivityResult> {
  const url = new URL(site.url);
  const started = performance.now();
  const state: AttemptState = { sockets: [], tlsVerified: false };
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Timeout()), opts.timeoutMs ?? 10_000);
  });
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const work = fetchThroughProxy(url, opts, state);
    // The loser of the race must not surface as an unhandled rejection.
    work.catch(() => undefined);
    deadline.catch(() => undefined);
    const httpStatus = await Promise.race([work, deadline]);
    const ok = httpStatus < 500;
    return {
      status: ok ? "ok" : "failed",
      detail: `The site answered with HTTP status ${httpStatus}`,
      code: "connectivity.answered",
      httpStatus,
      durationMS: elapsed(),
      tlsVerified: state.tlsVerified,
    };
  } catch (err) {
    if (err instanceof Timeout) {
      return {
        status: "timeout",
        detail: `No answer within ${Math.round((opts.timeoutMs ?? 10_000) / 100) / 10} seconds`,
        code: "connectivity.timeout",
        httpStatus: 0,
        durationMS: elapsed(),
        tlsVerified: state.tlsVerified,
      };
    }
    opts.onFailure?.(err instanceof ProxyDown ? err.cause : err);
    return {
      status: "failed",
      ...describeFailure(err, opts.proxyPort),
      httpStatus: 0,
      durationMS: elapsed(),
      tlsVerified: false,
    };
  } finally {
    clearTimeout(timer);
    for (const s of state.sockets) s.destroy();
  }
}
