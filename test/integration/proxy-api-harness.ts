import http from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "../../server/clock.js";
import { DomainError } from "../../server/domain-errors.js";
import type { CoreClient, CoreControl, CoreProxy } from "../../server/proxy/context.js";
import type { FeedSource } from "../../server/proxy/domain/refresher.js";
import {
  createProxyService,
  type ProxyService,
  type ProxyServiceExtras,
} from "../../server/proxy/service.js";
import type { ProxyServiceOptions } from "../../server/proxy/context.js";
import type { CoreInput, MihomoProxy, SubscriptionUsage } from "../../server/proxy/types.js";
import { freePort } from "../helpers/free-ports.js";

export const PASSWORD = "correct horse battery";

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string | undefined>;
  /** Sends no CSRF token / no cookie. */
  noCsrf?: boolean;
  noCookie?: boolean;
}

/** A CoreControl stand-in that records what it was given (for tests of the service alone). */
export class FakeCore implements CoreControl {
  installed = false;
  configError = "";
  applied: CoreInput[] = [];
  selections: CoreInput[] = [];
  isRunning = false;
  failApply: string | null = null;
  failSelection: string | null = null;
  proxies: Record<string, CoreProxy> | null = null;
  delays = new Map<string, number | Error>();
  healthchecks: Array<{ provider: string; name: string; url: string; timeoutMs: number }> = [];
  inFlight = 0;
  maxInFlight = 0;
  closed = false;
  readonly client: CoreClient = {
    version: async () => {
      if (!this.isRunning) throw new Error("core offline");
      return "v1.19.0";
    },
    proxies: async () => {
      if (!this.proxies) throw new Error("connect ECONNREFUSED 127.0.0.1:9090");
      return this.proxies;
    },
    healthcheck: async (provider, name, url, timeoutMs) => {
      this.healthchecks.push({ provider, name, url, timeoutMs });
      this.inFlight++;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      try {
        await new Promise((r) => setTimeout(r, 5));
        const d = this.delays.get(name);
        if (d === undefined) throw new Error("Resource not found");
        if (d instanceof Error) throw d;
        if (d < 0) return new Promise<number>(() => undefined); // never answers
        return d;
      } finally {
        this.inFlight--;
      }
    },
  };
  async apply(input: CoreInput): Promise<void> {
    if (this.failApply) {
      throw new DomainError("invalid", "core.config_rejected", this.failApply, {
        params: { detail: this.failApply },
      });
    }
    this.applied.push(structuredClone(input));
  }
  async applySelection(input: CoreInput): Promise<void> {
    if (this.failSelection) throw new Error(this.failSelection);
    this.selections.push(structuredClone(input));
  }
  async start(input: CoreInput): Promise<void> {
    await this.apply(input);
    this.isRunning = true;
  }
  async stop(): Promise<void> {
    this.isRunning = false;
  }
  async restart(input: CoreInput): Promise<void> {
    await this.start(input);
  }
  running(): boolean {
    return this.isRunning;
  }
  async close(): Promise<void> {
    this.closed = true;
  }
  get lastApplied(): CoreInput | undefined {
    return this.applied[this.applied.length - 1];
  }
}

export interface ProxyHarness {
  service: ProxyService;
  clock: ManualClock;
  dataDir: string;
  port: number;
  origin: string;
  cookie: string | null;
  csrf: string;
  request(method: string, path: string, options?: RequestOptions): Promise<Reply>;
  /** Runs setup with the service's token and keeps the session. */
  setup(): Promise<void>;
  close(wipe?: boolean): Promise<void>;
}

export type HarnessOptions = Partial<ProxyServiceOptions> &
  ProxyServiceExtras & { clock?: ManualClock; dataDir?: string };

/** Starts the real proxy service on 127.0.0.1 port 0 with a temporary data dir. */
export async function startProxy(opts: HarnessOptions = {}): Promise<ProxyHarness> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), "gatehouse-proxy-"));
  const clock = opts.clock ?? new ManualClock(Date.UTC(2026, 0, 1, 12));
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const service = await createProxyService({
    log: () => undefined,
    schedulerIntervalMs: 0,
    autoStartCore: false,
    // Never the production 9090, which another core may hold.
    controllerPort: await freePort(),
    ...opts,
    dataDir,
    clock,
  });
  service.setOwnPort(port);
  server.on("request", service.app);
  await service.start();
  const origin = `http://127.0.0.1:${port}`;

  const h: ProxyHarness = {
    service,
    clock,
    dataDir,
    port,
    origin,
    cookie: null,
    csrf: "",
    request: (method, path, o = {}) =>
      new Promise((resolve, reject) => {
        const headers: Record<string, string> = { host: `127.0.0.1:${port}` };
        if (h.cookie && !o.noCookie) headers.cookie = h.cookie;
        if (!["GET", "HEAD"].includes(method)) {
          headers.origin = origin;
          if (h.csrf && !o.noCsrf) headers["x-csrf-token"] = h.csrf;
        }
        let payload: Buffer | undefined;
        if (o.body !== undefined) {
          payload = Buffer.from(typeof o.body === "string" ? o.body : JSON.stringify(o.body));
          headers["content-type"] = "application/json";
          headers["content-length"] = String(payload.length);
        }
        for (const [k, v] of Object.entries(o.headers ?? {})) {
          if (v === undefined) delete headers[k.toLowerCase()];
          else headers[k.toLowerCase()] = v;
        }
        const req = http.request(
          { host: "127.0.0.1", port, method, path: `/api/v1${path}`, headers },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () => {
              const text = Buffer.concat(chunks).toString("utf8");
              let json: unknown;
              if ((res.headers["content-type"] ?? "").includes("application/json"))
                json = JSON.parse(text);
              resolve({ status: res.statusCode ?? 0, headers: res.headers, json, text });
            });
            res.on("error", reject);
          },
        );
        req.on("error", reject);
        req.end(payload);
      }),
    async setup() {
      const token = service.setupToken;
      if (!token) throw new Error("already set up");
      const r = await h.request("POST", "/auth/setup", { body: { token, password: PASSWORD } });
      if (r.status !== 200) throw new Error(`setup failed: ${r.status} ${r.text}`);
      h.cookie = sessionCookie(r);
      h.csrf = r.json.csrf;
    },
    async close(wipe = true) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await service.close();
      if (wipe) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return h;
}

/** `svc_session=<value>` from a reply's Set-Cookie, or null. */
export function sessionCookie(r: Reply): string | null {
  const line = (r.headers["set-cookie"] ?? []).find((c) => c.startsWith("svc_session="));
  if (!line) return null;
  return line.split(";")[0];
}

/** A feed source that answers from a table (until the real subscription module is used). */
export class FakeFeeds implements FeedSource {
  responses = new Map<string, string | Error>();
  usage = new Map<string, SubscriptionUsage>();
  calls: string[] = [];
  gate: Promise<void> | null = null;
  async fetch(url: string): Promise<{ body: string; usage: SubscriptionUsage | null }> {
    this.calls.push(url);
    if (this.gate) await this.gate;
    const r = this.responses.get(url);
    if (r === undefined) throw new Error("HTTP 404 from the subscription server");
    if (r instanceof Error) throw r;
    return { body: r, usage: this.usage.get(url) ?? null };
  }
  parse(body: string) {
    const nodes = JSON.parse(body) as MihomoProxy[];
    if (!Array.isArray(nodes)) throw new Error("unreadable");
    return { nodes, skipped: 0 };
  }
}
