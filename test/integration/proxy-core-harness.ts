import type { SqlProxyStore } from "../../server/proxy/store/proxy-store.js";
import { freePort, refusedPort } from "../helpers/free-ports.js";
import { RouteTable } from "../../server/http/route-table.js";
import type { ProxyAccess } from "../../server/proxy/auth/guards.js";
import { PROXY_API } from "../../server/contract/proxy.js";
import express from "express";
import http from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock, type Clock } from "../../server/clock.js";
import { errorHandler } from "../../server/http/errors.js";
import { PROXY_STATUS } from "../../server/proxy/error-status.js";
import { CoreService } from "../../server/proxy/domain/core-service.js";
import { createServiceLog, loggerForLines } from "../../server/log.js";
import type {
  CoreControl,
  ProxyContext,
  ProxyServiceOptions,
  ProxyStore,
} from "../../server/proxy/context.js";
import { createCoreManager, type CoreManager } from "../../server/proxy/core/index.js";
import { Accounts } from "../../server/proxy/auth/accounts.js";
import { SetupToken } from "../../server/proxy/auth/setup-token.js";
import { CoreInstaller } from "../../server/proxy/core/install.js";
import { CoreLocator } from "../../server/proxy/core/install-location.js";
import { assembleDomain } from "../../server/proxy/domain/assemble.js";
import { connectionsRouter } from "../../server/proxy/routes/connections.js";
import type { ProxyRouterDeps } from "../../server/proxy/routes/router-deps.js";
import { statusRouter } from "../../server/proxy/routes/status.js";
import { streamsRouter, streamTimings } from "../../server/proxy/routes/streams.js";
import { systemRouter } from "../../server/proxy/routes/system.js";
import { openProxyStorage } from "../../server/proxy/store/open-storage.js";
import {
  DEFAULT_SETTINGS,
  type CoreInput,
  type MihomoProxy,
  type RuleRecord,
  type Settings,
  type SubscriptionRecord,
} from "../../server/proxy/types.js";

/** An in-memory ProxyStore: enough state for the live routes and the compiler. */
export class MemoryStore implements ProxyStore {
  settings: Settings = { ...DEFAULT_SETTINGS };
  subscriptions: Array<SubscriptionRecord & { nodes: MihomoProxy[] }> = [];
  rules: RuleRecord[] = [];
  getSettings(): Settings {
    return { ...this.settings };
  }
  listSubscriptions(): SubscriptionRecord[] {
    return this.subscriptions.map(({ nodes, ...rest }) => ({ ...rest, nodeCount: nodes.length }));
  }
  listRules(): RuleRecord[] {
    return [...this.rules];
  }
  coreInput(): CoreInput {
    return {
      settings: this.getSettings(),
      subscriptions: this.subscriptions
        .filter((s) => s.enabled)
        .map((s) => ({ id: s.id, name: s.name, nodes: s.nodes })),
      rules: this.listRules(),
    };
  }
  nodeCount(): number {
    return this.subscriptions.filter((s) => s.enabled).reduce((n, s) => n + s.nodes.length, 0);
  }
  addSubscription(id: string, nodes: MihomoProxy[], enabled = true): void {
    this.subscriptions.push({
      id,
      name: `sub ${id.slice(0, 4)}`,
      url: "http://127.0.0.1/feed",
      enabled,
      intervalHours: 0,
      updatedAt: null,
      attemptedAt: null,
      lastError: "",
      lastErrorCode: "",
      lastErrorParams: {},
      usage: null,
      nodeCount: nodes.length,
      nodes,
    });
  }
}

export interface Reply {
  status: number;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
}

export interface LiveHarness {
  url: string;
  port: number;
  ctx: ProxyContext;
  store: MemoryStore;
  /** The real repositories the routers' domain objects use (a database of their own). */
  repos: SqlProxyStore;
  core: CoreControl;
  clock: Clock;
  dir: string;
  /** Session ids the fake session check accepts. */
  alive: Set<string>;
  /** The HTTP server the routers answer on (tests watch its responses). */
  server: http.Server;
  request(method: string, path: string, body?: unknown, session?: string): Promise<Reply>;
  close(): Promise<void>;
}

export interface LiveOptions {
  core?: CoreControl;
  /** Builds the core manager on this controller port when `core` is not given. */
  controllerPort?: number;
  coreBin?: string;
  options?: Partial<ProxyServiceOptions>;
  clock?: Clock;
  connectivityTimeoutMs?: number;
  timings?: Partial<typeof streamTimings>;
}

/** Mounts the live routers on an express app on port 0 with a fake session check. */
export async function startLive(opts: LiveOptions = {}): Promise<LiveHarness> {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-core-"));
  const clock = opts.clock ?? new ManualClock();
  const store = new MemoryStore();
  const alive = new Set(["s1"]);
  const core: CoreControl =
    opts.core ??
    createCoreManager({
      homeDir: join(dir, "core"),
      coreBin: opts.coreBin,
      service: "process",
      unit: "gatehouse-mihomo.service",
      controllerPort: opts.controllerPort ?? 1,
      clock,
      log: () => undefined,
      backoffBaseMs: 50,
    });
  const log = createServiceLog(
    loggerForLines(() => undefined),
    clock,
  );
  const options: ProxyServiceOptions = {
    dataDir: dir,
    coreBin: opts.coreBin,
    controllerPort: opts.controllerPort,
    ...opts.options,
  };
  // The live routers read the in-memory state above; the rest of what routers are given is
  // real, over an empty database of their own.
  const storage = openProxyStorage(dir);
  const locator = new CoreLocator({ dataDir: dir, configured: opts.coreBin });
  const installer = new CoreInstaller({
    locator,
    // A release server nothing answers for: a port that refuses every connection.
    releaseURL: `http://127.0.0.1:${await refusedPort()}/releases`,
    core,
    coreInput: () => store.coreInput(),
    log,
  });
  const surroundings = { options, dir: storage.dir, store: storage.repos, clock, log };
  const domain = assembleDomain(surroundings, core);
  const { changes, probation, refresher, devices, subscriptions, rules } = domain;
  const { nodes, settings, backups } = domain;
  // The core starts with what the test put in the in-memory store, as the live routes read it.
  const coreService = new CoreService(
    { coreInput: () => store.coreInput(), setFlag: (k, v) => storage.repos.setFlag(k, v) },
    core,
  );
  const accounts = new Accounts(storage.accounts, clock);
  const ctx: ProxyRouterDeps = {
    clock,
    log,
    dir,
    options,
    ownPort: () => 0,
    startedAt: clock.now(),
    store,
    core,
    locator,
    installer,
    changes,
    probation,
    devices,
    refresher,
    subscriptions,
    rules,
    nodes,
    settings,
    backups,
    coreService,
    accounts,
    setupToken: new SetupToken(storage.dir),
    sessionAlive: (id) => alive.has(id),
    // The live routers alone, without the service's session guard (tests name the session).
    routes: new RouteTable<ProxyAccess, typeof PROXY_API>({
      contract: PROXY_API,
      guard: () => [express.json()],
    }),
    machine: () => ({
      ownPort: 0,
      controllerPort: opts.controllerPort ?? 9090,
      interfaces: () => ({}),
    }),
    tuning: {
      connectivityTimeoutMs: opts.connectivityTimeoutMs ?? 5000,
      streams: { ...streamTimings, ...opts.timings },
    },
  };
  const app = express();
  app.use((req, res, next) => {
    res.locals.sessionId = req.get("x-test-session") ?? "s1";
    next();
  });
  app.use("/api/v1", statusRouter(ctx));
  app.use("/api/v1", systemRouter(ctx));
  app.use("/api/v1", connectionsRouter(ctx));
  app.use("/api/v1", streamsRouter(ctx));
  app.use(errorHandler(() => undefined, PROXY_STATUS));
  const server = http.createServer(app);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;

  const request = async (method: string, path: string, body?: unknown, session?: string) => {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers["content-type"] = "application/json";
    if (session) headers["x-test-session"] = session;
    const res = await fetch(`${url}/api/v1${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
    return { status: res.status, json, text } as Reply;
  };

  return {
    url,
    port,
    ctx,
    store,
    repos: storage.repos,
    core,
    clock,
    dir,
    alive,
    server,
    request,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await probation.stop();
      await refresher.abortAll();
      await core.close();
      storage.repos.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function asManager(core: CoreControl): CoreManager {
  return core as CoreManager;
}

export interface SseEvent {
  event: string;
  data: string;
}

/** Reads an SSE response into `events`; `ended` resolves when the server closes it. */
export function openSse(url: string, headers: Record<string, string> = {}) {
  const events: SseEvent[] = [];
  let status = 0;
  let contentType = "";
  let req: http.ClientRequest | null = null;
  const ended = new Promise<void>((resolve, reject) => {
    req = http.get(url, { headers }, (res) => {
      status = res.statusCode ?? 0;
      contentType = String(res.headers["content-type"] ?? "");
      let buf = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buf += chunk;
        let end = buf.indexOf("\n\n");
        while (end >= 0) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          const ev: SseEvent = { event: "message", data: "" };
          for (const line of block.split("\n")) {
            if (line.startsWith("event: ")) ev.event = line.slice(7);
            else if (line.startsWith("data: ")) ev.data = line.slice(6);
          }
          events.push(ev);
          end = buf.indexOf("\n\n");
        }
      });
      res.on("end", () => resolve());
      res.on("error", reject);
    });
    req.on("error", reject);
  });
  ended.catch(() => undefined);
  return {
    events,
    ended,
    get status() {
      return status;
    },
    get contentType() {
      return contentType;
    },
    close() {
      req?.destroy();
    },
  };
}

/** Polls `check` until it holds (or fails after `ms`). */
export async function waitFor(check: () => boolean, ms = 5000, what = "condition"): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A port nothing listens on right now. */
export { freePort, refusedPort };
