import { randomUUID } from "node:crypto";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import type { Clock } from "../../clock.js";
import type { ServiceLog } from "../../log.js";
import type { ProxyProblemCode } from "../../problem-codes.js";
import type { CoreControl, ProxyServiceOptions } from "../context.js";
import { coreApi, createCoreManager } from "../core/index.js";
import { lookupNeighbours, lookupVendors } from "../core/core-reader.js";
import { CoreInstaller, type InstallerOptions } from "../core/install.js";
import { CoreLocator } from "../core/install-location.js";
import type { SqlProxyStore } from "../store/proxy-store.js";
import { DEFAULT_RELEASE_URL } from "../system/updates.js";
import { createChanges, type Changes } from "./changes.js";
import { feedSource } from "./feed-source.js";
import { Probation } from "./probation.js";
import { coreProxyFinder, Refresher, type FeedSource } from "./refresher.js";
import { Backups } from "./backup.js";
import { CoreService } from "./core-service.js";
import { NodeChoice } from "./node-choice.js";
import { Rules } from "./rules.js";
import { ProxySettings } from "./settings.js";
import { Scheduler } from "./scheduler.js";
import { LeasesFile } from "../system/leases.js";
import type { NeighbourSource } from "../system/neighbours.js";
import { TrafficAccounting } from "./devices-accounting.js";
import { DeviceDiscovery } from "./devices-discovery.js";
import { Devices } from "./devices.js";
import { Subscriptions } from "./subscriptions.js";

/** Limits and platform of the core's install (tests make them small, or another OS). */
export type InstallTuning = Partial<
  Pick<
    InstallerOptions,
    "downloadTimeoutMs" | "releaseTimeoutMs" | "maxBytes" | "versionTimeoutMs" | "platform" | "arch"
  >
>;

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
  /**
   * How often the devices' traffic is read from the core and written to the database (tests
   * shorten them; a `pollMs` of 0 counts nothing, for a benchmark's comparison).
   */
  deviceTiming?: { pollMs?: number; flushMs?: number };
}

type Options = ProxyServiceOptions & ProxyServiceExtras;

/** What the core and the domain are told about the service they run in. */
export interface Surroundings {
  options: Options;
  /** `<dataDir>/proxy` */
  dir: string;
  store: SqlProxyStore;
  clock: Clock;
  log: ServiceLog<ProxyProblemCode>;
}

/** The proxy core: which executable runs, the layer that runs it, and its installer. */
export interface CoreParts {
  core: CoreControl;
  locator: CoreLocator;
  installer: CoreInstaller;
}

/** The core layer (or the one a test passes), after leftovers of an interrupted install go. */
export function assembleCore({ options, dir, store, clock, log }: Surroundings): CoreParts {
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
    createCoreManager({
      homeDir: join(dir, "core"),
      get coreBin() {
        return locator.current()?.path;
      },
      service: options.coreService ?? "process",
      unit: options.coreUnit ?? "gatehouse-mihomo.service",
      controllerPort: options.controllerPort ?? 9090,
      geodataDirs: options.geodataDirs,
      clock,
      log,
    });
  const installer = new CoreInstaller({
    locator,
    releaseURL: options.coreReleaseURL ?? DEFAULT_RELEASE_URL,
    core,
    coreInput: () => store.coreInput(),
    log,
    ...options.coreInstall,
  });
  return { core, locator, installer };
}

/**
 * The domain: the change queue, probation, subscription refreshes and their schedule, and
 * what the routers call (subscriptions, rules, nodes, settings, backups, the core's service).
 */
export interface DomainParts {
  changes: Changes;
  probation: Probation;
  refresher: Refresher;
  scheduler: Scheduler;
  devices: Devices;
  accounting: TrafficAccounting;
  subscriptions: Subscriptions;
  rules: Rules;
  nodes: NodeChoice;
  settings: ProxySettings;
  backups: Backups;
  coreService: CoreService;
}

/** This machine's own addresses, asked again at most once a minute. */
function ownAddresses(interfaces: NonNullable<Options["networkInterfaces"]>): () => Set<string> {
  let cache: { at: number; ips: Set<string> } | null = null;
  return () => {
    if (!cache || Date.now() - cache.at > 60_000) {
      const ips = new Set<string>();
      for (const list of Object.values(interfaces()))
        for (const a of list ?? []) ips.add(a.address.toLowerCase());
      cache = { at: Date.now(), ips };
    }
    return cache.ips;
  };
}

/** The devices: found from the core's connections, their traffic counted, their policies. */
function assembleDevices(
  { options, store, clock, log }: Surroundings,
  core: CoreControl,
  changes: Changes,
): Pick<DomainParts, "devices" | "accounting"> {
  // Linux's table is /proc/net/arp and `ip -6 neigh`; elsewhere the `arp` command lists it;
  // tests give a file (or null: none). Read in the core reader's worker: spawning a command
  // blocks the thread that does it for milliseconds.
  const table = options.neighbourTable;
  const source: NeighbourSource =
    table !== undefined
      ? { file: table }
      : { system: process.platform === "linux" ? "linux" : "arp" };
  const neighbours = () => lookupNeighbours(source);
  const discovery = new DeviceDiscovery({
    store,
    neighbours,
    leases: new LeasesFile(options.dhcpLeases ?? null),
    ownAddresses: ownAddresses(options.networkInterfaces ?? networkInterfaces),
    vendors: (macs) => lookupVendors(macs),
    onVendorError: (err) =>
      log.warn("devices.vendors_failed", "Looking up the makers of new devices failed", { err }),
  });
  // One count per service: the reader's worker keeps each connection's last bytes under it.
  const countKey = randomUUID();
  const pollMs = options.deviceTiming?.pollMs;
  let devices: Devices | null = null;
  const accounting = new TrafficAccounting({
    store,
    clock,
    discovery,
    read: async () => {
      const api = core.running() && pollMs !== 0 ? coreApi(core) : null;
      return api ? api.accounting(countKey, 3000) : null;
    },
    onChanged: () => devices?.devicesChanged(),
    onError: (err) =>
      log.error("devices.write_failed", "Writing the devices' traffic failed", { err }),
    pollMs,
    flushMs: options.deviceTiming?.flushMs,
  });
  devices = new Devices({ store, clock, changes, discovery, accounting, log });
  return { devices, accounting };
}

/**
 * Builds the domain over the stored state and the core. A change nobody confirmed before the
 * last stop is undone here, before the core can start, and only then are snapshot files no
 * subscription owns removed (the undo may bring subscriptions back).
 */
export function assembleDomain(
  { options, dir, store, clock, log }: Surroundings,
  core: CoreControl,
): DomainParts {
  const changes = createChanges(store, core);
  const probation = new Probation({ store, core, changes, clock, log, dir });
  probation.recoverAtStart();
  store.recoverSnapshots();
  const refresher = new Refresher(
    store,
    options.feeds ?? feedSource,
    changes.applyCore,
    clock,
    log,
    coreProxyFinder(core, () => store.getSettings()),
  );
  const scheduler = new Scheduler(store, refresher, clock, log, options.schedulerIntervalMs);
  const subscriptions = new Subscriptions(store, changes, refresher, clock);
  const rules = new Rules(store.rules, changes);
  const nodes = new NodeChoice(store, core, (line) => log(line));
  const settings = new ProxySettings(store, probation);
  const backups = new Backups(store, probation, clock);
  const coreService = new CoreService(store, core);
  const surroundings = { options, dir, store, clock, log };
  return {
    changes,
    probation,
    refresher,
    scheduler,
    subscriptions,
    rules,
    nodes,
    settings,
    backups,
    coreService,
    ...assembleDevices(surroundings, core, changes),
  };
}
