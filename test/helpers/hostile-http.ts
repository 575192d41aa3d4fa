import http from "node:http";

/** Plain HTTP requests for the hostile matrix: exactly the headers given, nothing from a jar. */

export type Headers = Record<string, string>;

export interface RawRequest {
  method: string;
  /** Full request target: prefix, path and query. */
  path: string;
  headers: Headers;
  body?: Buffer;
}

export interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** GET and HEAD never change state; only the other methods need an origin proof. */
export function isStateChanging(method: string): boolean {
  return method !== "GET" && method !== "HEAD";
}

/**
 * One request on its own connection, with exactly the headers given (nothing added but
 * Content-Length). An event stream resolves as soon as its head arrives.
 */
export function send(port: number, r: RawRequest, timeoutMs = 15_000): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (err: Error | null, reply?: RawReply) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(reply as RawReply);
    };
    const headers = { ...r.headers };
    if (r.body) headers["content-length"] = String(r.body.length);
    const req = http.request({
      host: "127.0.0.1",
      port,
      method: r.method,
      path: r.path,
      headers,
      agent: false,
    });
    const timer = setTimeout(() => {
      req.destroy();
      settle(new Error(`${r.method} ${r.path} got no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    // A refusal may come before the body is written; the write error that follows is expected.
    req.on("error", (err) => settle(err));
    req.on("response", (res) => {
      res.on("error", () => undefined);
      if ((res.headers["content-type"] ?? "").startsWith("text/event-stream")) {
        settle(null, { status: res.statusCode ?? 0, headers: res.headers, text: "" });
        res.destroy();
        req.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        settle(null, { status: res.statusCode ?? 0, headers: res.headers, text });
      });
    });
    req.end(r.body);
  });
}
