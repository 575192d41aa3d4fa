import type { ServiceLog } from "../../log.js";
import type { ProxyProblemCode } from "../../problem-codes.js";
import type { CoreControl } from "../context.js";
import type { SqlProxyStore } from "../store/proxy-store.js";
import type { ProxyServiceExtras, DomainParts } from "./assemble.js";
import { CORE_WAS_RUNNING } from "./core-service.js";

export interface Lifecycle {
  /** Starts the timers, and the core when it ran at the last shutdown (or when told to). */
  start(): Promise<void>;
  /** Stops everything in order and closes the database; a second call does nothing. */
  close(): Promise<void>;
}

/** How the running service starts and stops its timers, its downloads and its core. */
export function lifecycle(
  parts: DomainParts & {
    options: ProxyServiceExtras;
    store: SqlProxyStore;
    core: CoreControl;
    log: ServiceLog<ProxyProblemCode>;
  },
): Lifecycle {
  const { options, store, core, log, scheduler, refresher, probation, accounting } = parts;
  let closed = false;
  return {
    async start() {
      scheduler.start();
      probation.start(options.probationCheckMs);
      // Counted whenever the core runs, whether or not a console is open.
      accounting.start();
      // A change undone at start was made while the core ran: a core the crashed run left
      // behind may still run it, and a start replaces it with one on the state undone.
      const wanted =
        options.autoStartCore ?? (store.getFlag(CORE_WAS_RUNNING) || probation.undidAtStart);
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
      // What was counted since the last write is written before the database closes.
      await accounting.stop();
      store.setFlag(CORE_WAS_RUNNING, core.running());
      await core
        .close()
        .catch((err: unknown) =>
          log.error("core.close_failed", "Closing the proxy core failed", { err }),
        );
      store.close();
    },
  };
}
