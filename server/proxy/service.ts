import express, { type Express } from "express";
import { CONTENT_SECURITY_POLICY } from "../http/csp.js";
import { ensurePrivateDir, privateDatabaseFile, tightenTreeSync } from "../private-files.js";
import { networkInterfaces } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { systemClock } from "../clock.js";
import { migrate, openDatabase } from "../db/open.js";
import { errorHandler, notFound } from "../http/errors.js";
import { EXACT } from "../http/route-table.js";
import { requestLog } from "../http/request-log.js";
import { createLogger, createServiceLog, loggerForLines } from "../log.js";
import type { ProxyProblemCode } from "../problem-codes.js";
import { Accounts } from "./auth/accounts.js";
import { hostGuard, proxyRouteTable, sameOriginGuard } from "./auth/guards.js";
import { SetupToken } from "./auth/setup-token.js";
import type { CoreControl, ProxyContext, ProxyServiceOptions } from "./context.js";
import { authRouter } from "./routes/auth.js";
import { backupRouter } from "./routes/backup.js";
import { createChanges } from "./routes/changes.js";
import type { ServiceDeps } from "./routes/deps.js";
import { nodesRouter } from "./routes/nodes.js";
import { coreProxyFinder, Refresher, type FeedSource } from "./routes/refresher.js";
import { rulesRouter } from "./routes/rules.js";
import { settingsRouter } from "./routes/settings.js";
import { subscriptionsRouter } from "./routes/subscriptions.js";
import { Scheduler } from "./scheduler.js";
import { SqlProxyStore } from "./store/proxy-store.js";
import { liveRouters, loadCore, feedSource } from "./routes/modules.js";
import { CoreInstaller, type InstallerOptions } from "./core/install.js";
import { CoreLocator } from "./core/install-location.js";
import { coreInstallRouter } from "./routes/core-install.js";
import { Probation } from "./probation.js";
import { probationRouter } from "./routes/probation.js";
import { DEFAULT_RELEASE_URL } from "./system/updates.js";

type InstallTuning = Partial<
  Pick<
    InstallerOptions,
    "downloadTimeoutMs" | "releaseTimeoutMs" | "maxBytes" | "platform" | "arch"
  >
>;

const CORE_WAS_RUNNING = "core-was-running";
const MIGRATIONS = join(dirname(fileURLToPath(import.meta.url)), "migrations");

/** Every address of this machine's interfaces (the `Host` names the console accepts as IPs). */
function machineAddresses(
  interfaces: () => NodeJS.Dict<import("node:os").NetworkInterfaceInfo[]>,
): string[] {
  return Object.values(interfaces())
    .flatMap((list) => list ?? [])
    .map((i) => i.address.replace(/%.*$/, ""));
}

export interface ProxyService {
  app: Express;
  /** The setup token while the service is not initialised (print it once), else null. */
  readonly setupToken: string | null;
  ctx: ProxyContext;
  scheduler: Scheduler;
  /** Confirm or revert of settings changes that can cut the operator off. */
  probation: Probation;
  setOwnPort(port: number): void;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Test seams beyond `ProxyServiceOptions`; production passes none of them. */
export interface ProxyServiceExtras {
  /** Replaces the core layer (tests wrap or fake it). */
  core?: CoreControl;
  /** Replaces the subscription fetch + parse functions. */
  feeds?: FeedSource;
  /** How often the scheduler checks for due refreshes (0 = only when `scheduler.tick()`). */
  schedulerIntervalMs?: number;
  /** Whether `start()` starts an installed core (default: when it ran at the last shutdown). */
  autoStartCore?: boolean;
  /** How often a waiting settings change's deadline is checked (0 = only `probation.tick()`). */
  probationCheckMs?: number;
  /** Limits and platform of the core's install (tests make them small, or another OS). */
  coreInstall?: InstallTuning;
}

export async function createProxyService(
  options: ProxyServiceOptions & ProxyServiceExtras,
): Promise<ProxyService> {
  const clock = options.clock ?? systemClock;
  const log = createServiceLog<ProxyProblemCode>(
    options.logger ?? (options.log ? loggerForLines(options.log) : createLogger()),
    clock,
  );
  const dir = join(options.dataDir, "proxy");
  // 0700/0600 on every start, for the whole (small) tree: database, setup token, snapshots
  // and the core's home with its configuration, secret and provider files.
  tightenTreeSync(ensurePrivateDir(dir));
  const db = openDatabase(privateDatabaseFile(join(dir, "proxy.db")));
  migrate(db, MIGRATIONS);
  const store = new SqlProxyStore(db, dir);
  const accounts = new Accounts(db, clock);
  const setupToken = new SetupToken(dir);
  if (accounts.initialized()) setupToken.clearStale();
  else setupToken.issue();

  let ownPort = 0;
  const routes = proxyRouteTable(accounts);
  const interfaces = options.networkInterfaces ?? networkInterfaces;
  const controllerPort = options.controllerPort ?? 9090;
  // Which core runs is asked again at each use: an install or a rollback changes it.
  const locator = new CoreLocator({
    dataDir: options.dataDir,
    configured: options.coreBin,
    fallback: options.coreFallback,
    platform: options.coreInstall?.platform,
  });
  CoreInstaller.sweep(locator);
  const core =
    options.core ??
    (await loadCore({
      homeDir: join(dir, "core"),
      get coreBin() {
        return locator.current()?.path;
      },
      service: options.coreService ?? "process",
      unit: options.coreUnit ?? "gatehouse-mihomo.service",
      controllerPort,
      geodataDirs: options.geodataDirs,
      clock,
      log,
    }));
  const ctx: ProxyContext = {
    db,
    clock,
    log,
    dir,
    options,
    ownPort: () => ownPort,
    startedAt: clock.now(),
    store,
    core,
    sessionAlive: (id) => accounts.aliveByHash(id),
    routes,
    coreBin: () => locator.current()?.path,
  };
  const installer = new CoreInstaller({
    locator,
    releaseURL: options.coreReleaseURL ?? DEFAULT_RELEASE_URL,
    core,
    coreInput: () => store.coreInput(),
    log,
    ...options.coreInstall,
  });
  const changes = createChanges(store, core);
  const probation = new Probation({ store, core, changes, clock, log, dir });
  // Before the core can start: a change nobody confirmed before the last stop is undone.
  probation.recoverAtStart();
  ctx.probation = probation;
  const refresher = new Refresher(
    store,
    options.feeds ?? feedSource,
    changes.applyCore,
    clock,
    log,
    coreProxyFinder(core, () => store.getSettings()),
  );
  const scheduler = new Scheduler(store, refresher, clock, log, options.schedulerIntervalMs);
  const deps: ServiceDeps = {
    store,
    clock,
    accounts,
    setupToken,
    refresher,
    changes,
    probation,
    machine: () => ({ ownPort, controllerPort, interfaces }),
    routes,
  };

  const app = express();
  // Paths match exactly everywhere: another letter case or a trailing slash is another path.
  app.set("case sensitive routing", true);
  app.set("strict routing", true);
  app.disable("x-powered-by");
  app.use(requestLog(log));
  app.set("etag", false);
  app.use(hostGuard(() => machineAddresses(interfaces), options.allowedHosts));
  app.use((_req, res, next) => {
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Referrer-Policy", "no-referrer");
    res.setHeader("X-Frame-Options", "DENY");
    res.setHeader("Cross-Origin-Opener-Policy", "same-origin");
    res.setHeader("Cross-Origin-Resource-Policy", "same-origin");
    next();
  });
  const api = express.Router(EXACT);
  api.use((_req, res, next) => {
    res.setHeader("Cache-Control", "no-store");
    next();
  });
  api.use(sameOriginGuard);
  api.use(authRouter(deps));
  api.use(subscriptionsRouter(deps));
  api.use(nodesRouter(ctx, deps));
  api.use(rulesRouter(deps));
  api.use(settingsRouter(deps));
  api.use(backupRouter(ctx, deps));
  api.use(probationRouter(routes, probation));
  api.use(coreInstallRouter(ctx, locator, installer));
  for (const router of await liveRouters(ctx)) api.use(router);
  api.use(notFound("No such endpoint", "request.no_endpoint"));
  app.use("/api/v1", api);
  if (options.staticDir) {
    const staticDir = options.staticDir;
    app.get(["/", "/index.html", "/proxy.html"], (_req, res) => {
      res.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
      res.setHeader("Cache-Control", "no-cache");
      res.sendFile(join(staticDir, "proxy.html"));
    });
    app.use(
      express.static(staticDir, {
        index: false,
        maxAge: "1h",
        setHeaders: (res, path) => {
          if (path.endsWith(".html"))
            res.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
        },
      }),
    );
  }
  app.use(notFound("No such page", "request.no_page"));
  app.use(errorHandler(log));

  let closed = false;
  return {
    app,
    get setupToken() {
      return setupToken.value;
    },
    ctx,
    scheduler,
    probation,
    setOwnPort(port: number) {
      ownPort = port;
    },
    async start() {
      scheduler.start();
      probation.start(options.probationCheckMs);
      const wanted = options.autoStartCore ?? store.getFlag(CORE_WAS_RUNNING);
      if (wanted && core.installed) {
        // A gateway comes back the way it was shut down; a failure is reported, not fatal.
        await core.start(store.coreInput()).catch((err: unknown) => {
          log.error("core.did_not_start", "The proxy core did not start", { err });
        });
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      // Stop the timer first, then cancel downloads so a running check ends promptly.
      const stopping = scheduler.stop();
      await refresher.abortAll();
      await stopping;
      await probation.stop();
      store.setFlag(CORE_WAS_RUNNING, core.running());
      await core
        .close()
        .catch((err: unknown) =>
          log.error("core.close_failed", "Closing the proxy core failed", { err }),
        );
      db.close();
    },
  };
}
