import { connect as netConnect, type Socket } from "node:net";
import { connect as tlsConnect, rootCertificates, type TLSSocket } from "node:tls";
import { performance } from "node:perf_hooks";

export interface ConnectivitySite {
  id: string;
  name: string;
  url: string;
  category: "global" | "domestic";
}

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

export interface ConnectivityResult {
  status: "ok" | "failed" | "timeout";
  detail: string;
  httpStatus: number;
  durationMS: number;
  tlsVerified: boolean;
}

export interface ConnectivityOptions {
  /** The core's mixed port on 127.0.0.1. */
  proxyPort: number;
  /** Extra trusted CA (PEM), added to the system CAs. */
  extraCA?: string;
  timeoutMs?: number;
}

class Timeout extends Error {}

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
  const host = url.hostname;
  const port = Number(url.port || 443);
  const started = performance.now();
  const sockets: Socket[] = [];
  let tlsVerified = false;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Timeout()), opts.timeoutMs ?? 10_000);
  });
  const attempt = async (): Promise<number> => {
    const raw = netConnect({ host: "127.0.0.1", port: opts.proxyPort });
    sockets.push(raw);
    await new Promise<void>((resolve, reject) => {
      raw.once("connect", () => resolve());
      raw.once("error", reject);
    });
    raw.write(`CONNECT ${host}:${port} HTTP/1.1\r\nHost: ${host}:${port}\r\n\r\n`);
    const tunnel = await readHead(raw);
    if (tunnel !== 200) throw new Error(`The proxy refused the tunnel (HTTP ${tunnel})`);
    const ca = opts.extraCA ? [...rootCertificates, opts.extraCA] : undefined;
    const tls = tlsConnect({ socket: raw, servername: host, ca, rejectUnauthorized: true });
    sockets.push(tls);
    await new Promise<void>((resolve, reject) => {
      tls.once("secureConnect", () => resolve());
      tls.once("error", reject);
    });
    tlsVerified = tls.authorized;
    tls.write(
      `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${host}\r\nUser-Agent: Gatehouse-connectivity/1\r\nAccept: */*\r\nConnection: close\r\n\r\n`,
    );
    return readHead(tls);
  };
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const work = attempt();
    // The loser of the race must not surface as an unhandled rejection.
    work.catch(() => undefined);
    deadline.catch(() => undefined);
    const httpStatus = await Promise.race([work, deadline]);
    const ok = httpStatus < 500;
    return {
      status: ok ? "ok" : "failed",
      detail: ok ? `HTTP ${httpStatus}` : `The site answered HTTP ${httpStatus}`,
      httpStatus,
      durationMS: elapsed(),
      tlsVerified,
    };
  } catch (err) {
    if (err instanceof Timeout) {
      return {
        status: "timeout",
        detail: `No answer within ${opts.timeoutMs ?? 10_000} ms`,
        httpStatus: 0,
        durationMS: elapsed(),
        tlsVerified,
      };
    }
    const code = (err as { code?: string }).code;
    const message = err instanceof Error ? err.message : String(err);
    return {
      status: "failed",
      detail: code && !message.includes(code) ? `${message} (${code})` : message,
      httpStatus: 0,
      durationMS: elapsed(),
      tlsVerified: false,
    };
  } finally {
    clearTimeout(timer);
    for (const s of sockets) s.destroy();
  }
}
