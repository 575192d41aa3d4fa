import http from "node:http";
import type { AddressInfo } from "node:net";
import type { CoreProxy } from "../../server/proxy/context.js";

/**
 * A small stand-in for mihomo's controller (its /version, /proxies, /connections and /logs
 * answers, shaped as mihomo shapes them), for the live routes' own logic (rates, expiry,
 * mapping). The core layer itself is tested against the shared simulator and fake core.
 */
export class StubController {
  secret = "";
  version = "v1.19.2";
  proxies: Record<string, CoreProxy> = {};
  uploadTotal = 0;
  downloadTotal = 0;
  connections: Array<Record<string, unknown>> | null = null;
  closed: string[] = [];
  /** Runs before each /connections answer (tests move totals and time there). */
  onConnections: (() => void) | null = null;
  /** How many times /connections was asked. */
  connectionReads = 0;
  private logClients: http.ServerResponse[] = [];
  private server: http.Server | null = null;
  port = 0;

  get logListeners(): number {
    return this.logClients.filter((r) => !r.writableEnded && !r.destroyed).length;
  }

  async start(): Promise<number> {
    this.server = http.createServer((req, res) => this.handle(req, res));
    await new Promise<void>((r) => this.server?.listen(0, "127.0.0.1", r));
    this.port = (this.server.address() as AddressInfo).port;
    return this.port;
  }

  pushLog(type: string, payload: string): void {
    for (const r of this.logClients) r.write(`${JSON.stringify({ type, payload })}\n`);
  }

  /** Breaks every open log stream off (as a dying core would). */
  breakLogs(): void {
    for (const r of this.logClients.splice(0)) r.socket?.destroy();
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }

  private json(res: http.ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { "Content-Type": "application/json" });
    res.end(JSON.stringify(body));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (this.secret && req.headers.authorization !== `Bearer ${this.secret}`) {
      return this.json(res, 401, { message: "Unauthorized" });
    }
    const url = new URL(req.url ?? "/", "http://x");
    const path = decodeURIComponent(url.pathname);
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      if (req.method === "GET" && path === "/version") {
        return this.json(res, 200, { meta: true, version: this.version });
      }
      if (req.method === "GET" && path === "/proxies") {
        return this.json(res, 200, { proxies: this.proxies });
      }
      if (req.method === "PUT" && path.startsWith("/proxies/")) {
        const group = this.proxies[path.slice("/proxies/".length)];
        const name = (JSON.parse(body || "{}") as { name?: string }).name ?? "";
        if (!group?.all) return this.json(res, 400, { message: "Must be a Selector" });
        if (!group.all.includes(name))
          return this.json(res, 400, { message: "Proxy does not exist" });
        group.now = name;
        return void res.writeHead(204).end();
      }
      if (req.method === "GET" && path === "/connections") {
        this.connectionReads++;
        this.onConnections?.();
        return this.json(res, 200, {
          downloadTotal: this.downloadTotal,
          uploadTotal: this.uploadTotal,
          memory: 1024,
          connections: this.connections,
        });
      }
      if (req.method === "DELETE" && path.startsWith("/connections")) {
        this.closed.push(path.slice("/connections".length).replace(/^\//, "") || "*");
        return void res.writeHead(204).end();
      }
      if (req.method === "GET" && path === "/logs") {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.flushHeaders();
        this.logClients.push(res);
        return;
      }
      this.json(res, 404, { message: "Resource not found" });
    });
  }
}
