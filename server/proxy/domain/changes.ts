import { DomainError } from "../../domain-errors.js";
import { crashPoint } from "../../fault-points.js";
import type { CoreControl } from "../context.js";
import type { DeviceChoice } from "../store/devices.js";
import type { SqlProxyStore } from "../store/proxy-store.js";
import type { SubscriptionRow } from "../store/subscriptions.js";
import type { MihomoProxy, RuleRecord, Settings } from "../types.js";
import type { ApplyCore } from "./refresher.js";

interface Captured {
  settings: Settings;
  subscriptions: SubscriptionRow[];
  rules: RuleRecord[];
  /** The devices' names and policies (what the operator chose; discovery is not undone). */
  devices: DeviceChoice[];
}

function capture(store: SqlProxyStore): Captured {
  return {
    settings: store.getSettings(),
    subscriptions: store.subscriptions.rows(),
    rules: store.rules.list(),
    devices: store.devices.choices(),
  };
}

function putBack(store: SqlProxyStore, c: Captured): void {
  store.transaction(() => {
    store.saveSettings(c.settings);
    store.subscriptions.replaceAll(c.subscriptions);
    store.rules.replaceAll(c.rules);
    store.devices.replaceChoices(c.devices);
  });
}

/** The core's refusal as it is answered: its own coded error, else the generic one. */
function refusal(err: unknown): DomainError {
  if (err instanceof DomainError) return err;
  const message =
    err instanceof Error && err.message ? err.message : "Applying the configuration failed";
  return new DomainError("invalid", "core.apply_failed", message, {
    params: { detail: message },
    cause: err,
  });
}

export interface ChangeOptions {
  /**
   * Keep the committed state even when the core refuses it (an undo: the earlier state ran a
   * minute ago, so a restart loads it); `afterCommit` then runs all the same.
   */
  keepWhenRefused?: boolean;
}

export interface Changes {
  applyCore: ApplyCore;
  /**
   * Runs `mutate` in one transaction, then applies the new state to the core. When the
   * apply fails the previous stored state is put back and the refusal (a DomainError, answered
   * 400) is thrown; `afterCommit` runs only on success (e.g. deleting snapshot files), still in
   * the queue's turn.
   */
  change<T>(
    mutate: () => T,
    afterCommit?: (result: T) => void,
    options?: ChangeOptions,
  ): Promise<T>;
  /** Runs `task` in the queue's order without touching the core (confirming a change). */
  serial<T>(task: () => T): Promise<T>;
}

/**
 * Every write that ends in a core apply goes through one queue, so applies reach the core
 * in the order the state changed and a rollback never undoes a later change.
 */
export function createChanges(store: SqlProxyStore, core: CoreControl): Changes {
  let tail: Promise<unknown> = Promise.resolve();
  const enqueue = <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };

  return {
    applyCore(
      pending?: { id: string; nodes: MihomoProxy[] },
      onApplied?: () => void | Promise<void>,
    ) {
      return enqueue(async () => {
        try {
          await core.apply(store.coreInput(pending));
        } catch (err) {
          throw refusal(err);
        }
        await onApplied?.();
      });
    },
    change<T>(mutate: () => T, afterCommit?: (result: T) => void, options: ChangeOptions = {}) {
      return enqueue(async () => {
        const before = capture(store);
        const result = store.transaction(mutate);
        crashPoint("proxy.settings-committed");
        try {
          await core.apply(store.coreInput());
        } catch (err) {
          if (!options.keepWhenRefused) {
            putBack(store, before);
            throw refusal(err);
          }
        }
        afterCommit?.(result);
        return result;
      });
    },
    serial<T>(task: () => T) {
      return enqueue(async () => task());
    },
  };
}
