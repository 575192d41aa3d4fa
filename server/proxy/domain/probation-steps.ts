import type { DeviceChoice } from "../store/devices.js";
import type { SqlProxyStore } from "../store/proxy-store.js";
import type { SubscriptionRow } from "../store/subscriptions.js";
import type { RuleRecord, Settings } from "../types.js";

/**
 * What one change on probation changed, kept so it can be undone exactly: the settings it
 * changed (each with its value before and after), and for a restore, which replaces the lists,
 * the subscriptions and rules before and after it. Undoing a step puts back only what the step
 * itself did and what is still as the step left it: a rule added, a node chosen or a
 * subscription refreshed while the change waited for confirmation stays.
 */
export interface ProbationStep {
  settings: Partial<Record<keyof Settings, [unknown, unknown]>>;
  subscriptions?: { before: SubscriptionRow[]; after: SubscriptionRow[] };
  rules?: { before: RuleRecord[]; after: RuleRecord[] };
  /** A restore's names and policies of the devices, before and after it. */
  devices?: { before: DeviceChoice[]; after: DeviceChoice[] };
}

/** The stored state a change can touch: the settings, and the lists when it replaces them. */
export interface StateCopy {
  settings: Settings;
  subscriptions?: SubscriptionRow[];
  rules?: RuleRecord[];
  devices?: DeviceChoice[];
}

export function copyState(store: SqlProxyStore, lists: boolean): StateCopy {
  const settings = store.getSettings();
  return lists
    ? {
        settings,
        subscriptions: store.subscriptions.rows(),
        rules: store.rules.list(),
        devices: store.devices.choices(),
      }
    : { settings };
}

/** The step that took the state from `before` to `after`. */
export function stepBetween(before: StateCopy, after: StateCopy): ProbationStep {
  const settings: ProbationStep["settings"] = {};
  for (const key of Object.keys(after.settings) as Array<keyof Settings>) {
    if (before.settings[key] !== after.settings[key]) {
      settings[key] = [before.settings[key], after.settings[key]];
    }
  }
  const step: ProbationStep = { settings };
  if (before.subscriptions && after.subscriptions) {
    step.subscriptions = { before: before.subscriptions, after: after.subscriptions };
  }
  if (before.rules && after.rules) step.rules = { before: before.rules, after: after.rules };
  if (before.devices && after.devices) {
    step.devices = { before: before.devices, after: after.devices };
  }
  return step;
}

/**
 * The devices' names and policies with one restore undone: a device whose name and policy are
 * still what the restore gave it gets those it had before (none, for one the restore added);
 * one renamed or given another policy since keeps that. Devices are never removed here: their
 * history is not the restore's.
 */
export function undoDeviceChoices(
  before: readonly DeviceChoice[],
  after: readonly DeviceChoice[],
  current: readonly DeviceChoice[],
): DeviceChoice[] {
  const bare = (id: string): DeviceChoice => ({ id, name: "", policy: "default" });
  const same = (a: DeviceChoice, b: DeviceChoice) => a.name === b.name && a.policy === b.policy;
  const was = new Map(before.map((d) => [d.id, d]));
  const left = new Map(after.map((d) => [d.id, d]));
  const out = new Map(current.map((d) => [d.id, d]));
  for (const id of new Set([...was.keys(), ...left.keys()])) {
    const b = was.get(id) ?? bare(id);
    const a = left.get(id) ?? bare(id);
    if (same(out.get(id) ?? bare(id), a) && !same(a, b)) out.set(id, b);
  }
  return [...out.values()];
}

/** The fields of a subscription a person sets (a refresh changes the others). */
function sameSubscription(a: SubscriptionRow, b: SubscriptionRow): boolean {
  return (
    a.name === b.name &&
    a.url === b.url &&
    a.enabled === b.enabled &&
    a.interval_hours === b.interval_hours
  );
}

/** `now` with the fields a person sets taken from `was`: what it refreshed since stays. */
function subscriptionAsWas(now: SubscriptionRow, was: SubscriptionRow): SubscriptionRow {
  return {
    ...now,
    name: was.name,
    url: was.url,
    enabled: was.enabled,
    interval_hours: was.interval_hours,
  };
}

function sameRule(a: RuleRecord, b: RuleRecord): boolean {
  return (
    a.type === b.type && a.value === b.value && a.action === b.action && a.enabled === b.enabled
  );
}

/**
 * The list `current` with one replacement (`before` → `after`) undone: what the replacement
 * removed comes back, what it added goes, what it edited gets its earlier fields when nobody
 * edited it since; the items that were there before keep their earlier order, and items added
 * since stay at the end, or after the item they followed when moved up.
 */
export function undoList<T extends { id: string }>(
  before: readonly T[],
  after: readonly T[],
  current: readonly T[],
  same: (a: T, b: T) => boolean,
  asWas: (now: T, was: T) => T,
): T[] {
  const afterById = new Map(after.map((x) => [x.id, x]));
  const nowById = new Map(current.map((x) => [x.id, x]));
  const beforeIds = new Set(before.map((x) => x.id));
  const out: T[] = [];
  for (const was of before) {
    const left = afterById.get(was.id);
    const now = nowById.get(was.id);
    if (!now) {
      // Removed by the change: back. Kept by the change and removed since: stays removed.
      if (!left) out.push(was);
    } else if (left && same(now, left) && !same(left, was)) {
      out.push(asWas(now, was));
    } else {
      out.push(now);
    }
  }
  const since = (x: T) => !beforeIds.has(x.id) && !afterById.has(x.id);
  const placed = new Set(out.map((x) => x.id));
  current.forEach((item, i) => {
    if (!since(item)) return;
    // Added since the change: at the end when nothing kept follows it (where new items go),
    // else after the nearest earlier item that is still in the list.
    if (!current.slice(i + 1).some((x) => placed.has(x.id))) {
      out.push(item);
      return;
    }
    let at = 0;
    for (let j = i - 1; j >= 0; j--) {
      const k = out.findIndex((x) => x.id === current[j].id);
      if (k >= 0) {
        at = k + 1;
        break;
      }
    }
    out.splice(at, 0, item);
  });
  return out;
}

/**
 * Undoes `steps` (oldest first) on the stored state, newest first, in one transaction: a
 * setting goes back only where it still holds the value the step gave it.
 */
export function undoSteps(store: SqlProxyStore, steps: readonly ProbationStep[]): void {
  store.transaction(() => {
    const settings: Record<string, unknown> = { ...store.getSettings() };
    let subscriptions: SubscriptionRow[] | null = null;
    let rules: RuleRecord[] | null = null;
    let devices: DeviceChoice[] | null = null;
    for (const step of [...steps].reverse()) {
      for (const [key, change] of Object.entries(step.settings)) {
        if (change && settings[key] === change[1]) settings[key] = change[0];
      }
      if (step.subscriptions) {
        const { before, after } = step.subscriptions;
        subscriptions = undoList(
          before,
          after,
          subscriptions ?? store.subscriptions.rows(),
          sameSubscription,
          subscriptionAsWas,
        );
      }
      if (step.rules) {
        const { before, after } = step.rules;
        rules = undoList(before, after, rules ?? store.rules.list(), sameRule, (_now, was) => was);
      }
      if (step.devices) {
        const { before, after } = step.devices;
        devices = undoDeviceChoices(before, after, devices ?? store.devices.choices());
      }
    }
    store.saveSettings(settings as unknown as Settings);
    if (subscriptions) {
      store.subscriptions.replaceAll(subscriptions.map((row, i) => ({ ...row, position: i + 1 })));
    }
    if (rules) store.rules.replaceAll(rules);
    if (devices) store.devices.replaceChoices(devices);
  });
}

/**
 * Removes the node snapshots (which hold the nodes' passwords) of the subscriptions the steps
 * mention that are no longer stored: a restore keeps those it drops until its change is kept,
 * and an undo drops those the change had added.
 */
export function forgetDropped(store: SqlProxyStore, steps: readonly ProbationStep[]): void {
  const ids = new Set<string>();
  for (const step of steps) {
    for (const row of step.subscriptions?.before ?? []) ids.add(row.id);
    for (const row of step.subscriptions?.after ?? []) ids.add(row.id);
  }
  for (const id of ids) if (!store.subscriptions.get(id)) store.snapshots.remove(id);
}
