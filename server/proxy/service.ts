import type { Express } from "express";
import { networkInterfaces } from "node:os";
import { systemClock } from "../clock.js";
import { createLogger, createServiceLog, loggerForLines } from "../log.js";
import type { ProxyProblemCode } from "../problem-codes.js";
import { proxyApp } from "./app.js";
import { Accounts } from "./auth/accounts.js";
import { proxyRouteTable } from "./auth/guards.js";
import { resetConsolePassword } from "./auth/reset-password.js";
import { SetupToken } from "./auth/setup-token.js";
import type { ProxyContext, ProxyServiceOptions } from "./context.js";
import { assembleCore, assembleDomain, type ProxyServiceExtras } from "./domain/assemble.js";
import { lifecycle } from "./domain/lifecycle.js";
import type { Probation } from "./domain/probation.js";
import type { TrafficAccounting } from "./domain/devices-accounting.js";
import type { Devices } from "./domain/devices.js";
import type { Scheduler } from "./domain/scheduler.js";
import type { ProxyRouterDeps } from "./routes/router-deps.js";
import { openProxyStorage } from "./store/open-storage.js";

export type { ProxyServiceExtras } from "./domain/assemble.js";

export interface ProxyService {
  app: Express;
  /** The setup token while the service is not initialised (print it once), else null. */
  readonly setupToken: string | null;
  ctx: ProxyContext;
  scheduler: Scheduler;
  /** Confirm or revert of settings changes that can cut the operator off. */
  probation: Probation;
  /** The LAN devices and the count of their traffic (tests read and drive them). */
  devices: Devices;
  accounting: TrafficAccounting;
  setOwnPort(port: number): void;
  /** The ports of the parcel service beside it (the core's listeners may not take them). */
  setParcelPorts(ports: number[]): void;
  /**
   * `--reset-proxy-password`: a new generated password, every session signed out; answers
   * it to be shown once, or null while the console is not set up yet.
   */
  resetConsolePassword(): Promise<string | null>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** The composition root: storage → accounts → core → domain → routers → app. */
export async function createProxyService(
  options: ProxyServiceOptions & ProxyServiceExtras,
): Promise<ProxyService> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? (options.log ? loggerForLines(options.log) : createLogger());
  const log = createServiceLog<ProxyProblemCode>(logger, clock);

  const { dir, repos: store, accounts: accountsRepo } = openProxyStorage(options.dataDir);
  const accounts = new Accounts(accountsRepo, clock);
  const setupToken = new SetupToken(dir);
  if (accounts.initialized()) setupToken.clearStale();
  else setupToken.issue();

  const surroundings = { options, dir, store, clock, log };
  const { core, locator, installer } = assembleCore(surroundings);
  const domain = assembleDomain(surroundings, core);

  let ownPort = 0;
  let parcelPorts: number[] = [];
  const interfaces = options.networkInterfaces ?? networkInterfaces;
  const controllerPort = options.controllerPort ?? 9090;
  const deps: ProxyRouterDeps = {
    clock,
    log,
    dir,
    options,
    ownPort: () => ownPort,
    startedAt: clock.now(),
    store,
    core,
    coreBin: () => locator.current()?.path,
    locator,
    installer,
    changes: domain.changes,
    probation: domain.probation,
    devices: domain.devices,
    refresher: domain.refresher,
    subscriptions: domain.subscriptions,
    rules: domain.rules,
    nodes: domain.nodes,
    settings: domain.settings,
    backups: domain.backups,
    coreService: domain.coreService,
    accounts,
    setupToken,
    sessionAlive: (id) => accounts.aliveByHash(id),
    routes: proxyRouteTable(accounts),
    machine: () => ({ ownPort, controllerPort, parcelPorts, interfaces }),
    tuning: {},
  };
  const app = proxyApp(deps, interfaces);

  const { start, close } = lifecycle({ options, store, core, log, ...domain });
  return {
    app,
    get setupToken() {
      return setupToken.value;
    },
    ctx: deps,
    scheduler: domain.scheduler,
    probation: domain.probation,
    devices: domain.devices,
    accounting: domain.accounting,
    setOwnPort(port: number) {
      ownPort = port;
    },
    setParcelPorts(ports: number[]) {
      parcelPorts = [...ports];
    },
    resetConsolePassword: () => resetConsolePassword(accounts, log),
    start,
    close,
  };
}
