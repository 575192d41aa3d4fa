import type { Accounts } from "../auth/accounts.js";
import type { SetupToken } from "../auth/setup-token.js";
import type { ProxyContext } from "../context.js";
import type { CoreInstaller } from "../core/install.js";
import type { CoreLocator } from "../core/install-location.js";
import type { Changes } from "../domain/changes.js";
import type { Devices } from "../domain/devices.js";
import type { Probation } from "../domain/probation.js";
import type { Refresher } from "../domain/refresher.js";
import type { Backups } from "../domain/backup.js";
import type { CoreService } from "../domain/core-service.js";
import type { NodeChoice } from "../domain/node-choice.js";
import type { Rules } from "../domain/rules.js";
import type { ProxySettings } from "../domain/settings.js";
import type { Subscriptions } from "../domain/subscriptions.js";
import type { MachineContext } from "../domain/input-checks.js";

/** Intervals and deadlines of the routers; production takes the defaults, tests shorten them. */
export interface RouterTuning {
  /** Deadline of one connectivity test (`POST /system/connectivity`). */
  connectivityTimeoutMs?: number;
  /** Metrics interval, heartbeat, core deadline and write deadline of the event streams. */
  streams?: {
    metricsIntervalMs: number;
    heartbeatIntervalMs: number;
    coreDeadlineMs: number;
    writeDeadlineMs: number;
  };
  /** Deadline of one geodata file's download. */
  geodataTimeoutMs?: number;
}

/**
 * Everything a router of the proxy service may use, and the only thing it is given: every
 * router is `xxxRouter(deps: ProxyRouterDeps): Router`. Routers reach storage through the
 * domain objects here (and the context's read view), never through a repository.
 */
export interface ProxyRouterDeps extends ProxyContext {
  accounts: Accounts;
  setupToken: SetupToken;
  /** Downloads, parses and applies subscriptions. */
  refresher: Refresher;
  /** The subscriptions: list, create, edit, delete, refresh. */
  subscriptions: Subscriptions;
  /** The custom routing rules: list, create, edit, delete, reorder. */
  rules: Rules;
  /** The node list, the node chosen, and what a latency test needs. */
  nodes: NodeChoice;
  settings: ProxySettings;
  /** The backup of the stored state and its restore. */
  backups: Backups;
  /** The operator's start, stop and restart of the core. */
  coreService: CoreService;
  /** The one queue of writes that end in a core apply. */
  changes: Changes;
  /** Confirm or revert of changes that can cut the operator off. */
  probation: Probation;
  /** The LAN devices: their list, names, policies and traffic. */
  devices: Devices;
  /** What the settings check needs to know about this machine. */
  machine(): MachineContext;
  /** Which core executable runs (asked again at each use). */
  locator: CoreLocator;
  installer: CoreInstaller;
  tuning: RouterTuning;
}
