import type { Clock } from "../../clock.js";
import type { RouteTable } from "../../http/route-table.js";
import type { Accounts } from "../auth/accounts.js";
import type { ProxyAccess } from "../auth/guards.js";
import type { SetupToken } from "../auth/setup-token.js";
import type { SqlProxyStore } from "../store/proxy-store.js";
import type { MachineContext } from "../store/schemas.js";
import type { Probation } from "../probation.js";
import type { Changes } from "./changes.js";
import type { Refresher } from "./refresher.js";

/** What the service's own routers need beyond `ProxyContext`. */
export interface ServiceDeps {
  store: SqlProxyStore;
  clock: Clock;
  accounts: Accounts;
  setupToken: SetupToken;
  refresher: Refresher;
  changes: Changes;
  /** Confirm or revert of changes that can cut the operator off. */
  probation: Probation;
  machine(): MachineContext;
  routes: RouteTable<ProxyAccess>;
}
