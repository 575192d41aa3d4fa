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

/**
 * Several requests that reach the service at the same moment: each is sent on its own
 * connection but for the last byte of its body, and once all are that far the last bytes go
 * out in one turn, so the service receives the complete requests together (as requests raced
 * by a hostile client do). Every request needs a body. Answers the replies in order.
 */
export async function sendTogether(
  port: number,
  requests: RawRequest[],
  timeoutMs = 30_000,
): Promise<RawReply[]> {
  const held = requests.map((r) => {
    const body = r.body ?? Buffer.alloc(0);
    if (body.length === 0) throw new Error(`${r.method} ${r.path}: sendTogether needs a body`);
    const req = http.request({
      host: "127.0.0.1",
      port,
      method: r.method,
      path: r.path,
      headers: { ...r.headers, "content-length": String(body.length) },
      agent: false,
    });
    const reply = new Promise<RawReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        req.destroy();
        reject(new Error(`${r.method} ${r.path} got no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      req.on("error", (err) => (clearTimeout(timer), reject(err)));
      req.on("response", (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text });
        });
      });
    });
    const written = new Promise<void>((resolve) =>
      req.write(body.subarray(0, body.length - 1), () => resolve()),
    );
    return { req, last: body.subarray(body.length - 1), reply, written };
  });
  await Promise.all(held.map((h) => h.written));
  for (const h of held) h.req.end(h.last);
  return Promise.all(held.map((h) => h.reply));
}
