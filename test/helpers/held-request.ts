import net from "node:net";

/** What the service answered on a held connection (status 0: closed without an answer). */
export interface HeldAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * A request whose head and body are sent at moments the test chooses, on its own socket:
 * `connect()`, then `head()` (the request line and headers), then `body(bytes)` (written, not
 * ended: a body shorter than announced stays open), `reset()`. `answer` resolves with the first
 * answer the service sends (or status 0 once the connection closes without one).
 */
export class HeldRequest {
  private readonly socket: net.Socket;
  private received = Buffer.alloc(0);
  readonly answer: Promise<HeldAnswer>;
  private readonly connected: Promise<void>;

  constructor(
    private readonly port: number,
    private readonly method: string,
    private readonly path: string,
    private readonly headers: Record<string, string>,
  ) {
    this.socket = net.connect(port, "127.0.0.1");
    // The service may close or reset after answering; writes after that fail quietly.
    this.socket.on("error", () => undefined);
    this.connected = new Promise((resolve, reject) => {
      this.socket.once("connect", () => resolve());
      this.socket.once("error", reject);
    });
    this.answer = new Promise((resolve) => {
      const look = (): void => {
        const parsed = parseAnswer(this.received);
        if (parsed) {
          this.socket.off("data", onData);
          resolve(parsed);
        }
      };
      const onData = (b: Buffer): void => {
        this.received = Buffer.concat([this.received, b]);
        look();
      };
      this.socket.on("data", onData);
      this.socket.on("close", () => {
        resolve(parseAnswer(this.received, true) ?? { status: 0, headers: {}, body: "" });
      });
    });
  }

  connect(): Promise<void> {
    return this.connected;
  }

  /** Writes the request line and headers (nothing of the body). */
  head(): void {
    const lines = [`${this.method} /api/v1${this.path} HTTP/1.1`, `Host: 127.0.0.1:${this.port}`];
    for (const [k, v] of Object.entries(this.headers)) lines.push(`${k}: ${v}`);
    this.socket.write(`${lines.join("\r\n")}\r\n\r\n`);
  }

  body(bytes: Buffer): void {
    if (!this.socket.destroyed) this.socket.write(bytes);
  }

  /** Abortive close (RST). */
  reset(): void {
    if (!this.socket.destroyed) this.socket.resetAndDestroy();
  }

  close(): void {
    this.socket.destroy();
  }
}

/** The first complete answer in `raw` (interim 1xx answers skipped), or null. */
function parseAnswer(raw: Buffer, final = false): HeldAnswer | null {
  let text = raw.toString("latin1");
  for (;;) {
    const end = text.indexOf("\r\n\r\n");
    if (end < 0) return null;
    const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0);
    if (status >= 100 && status < 200) {
      text = text.slice(end + 4);
      continue;
    }
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(":");
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers["content-length"] ?? 0);
    const body = text.slice(end + 4);
    if (body.length < length && !final) return null;
    return { status, headers, body: Buffer.from(body, "latin1").toString("utf8") };
  }
}

/**
 * Sends the heads of `requests` in one go, so they reach the service in the same turn of its
 * event loop (a race decided across an await shows up), then waits until each is either
 * answered or counted by `busy()` (the service is receiving its body).
 */
export async function headsTogether(requests: HeldRequest[], busy: () => number): Promise<void> {
  await Promise.all(requests.map((r) => r.connect()));
  for (const r of requests) r.head();
  let answered = 0;
  for (const r of requests) void r.answer.then(() => answered++);
  const end = Date.now() + 10_000;
  while (answered + busy() < requests.length) {
    if (Date.now() > end) throw new Error("the requests were neither answered nor received");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
