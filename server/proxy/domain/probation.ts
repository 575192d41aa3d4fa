import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Clock } from "../../clock.js";
import { DomainError } from "../../domain-errors.js";
import type { ServiceLog } from "../../log.js";
import type { ProxyProblemCode } from "../../problem-codes.js";
import type { CoreControl } from "../context.js";
import { writeAtomic } from "../core/files.js";
import type { Changes } from "./changes.js";
import type { SqlProxyStore } from "../store/proxy-store.js";
import type { SubscriptionRow } from "../store/subscriptions.js";
import type { RuleRecord, Settings } from "../types.js";

/** How long a change that can cut the operator off waits for `POST /system/confirm`. */
export const PROBATION_SECONDS = 60;
/** Response header of such a change: the deadline in Unix seconds. */
export const PROBATION_HEADER = "X-Gatehouse-Probation";
/** How often the service looks at the deadline (tests pass 0 and call `tick()`). */
export const PROBATION_CHECK_MS = 1000;
/** Where the rollback point survives a restart of the service (next to proxy.db, 0600). */
export const PROBATION_FILE = "probation.json";

/** The settings that decide whether the operator can still reach the gateway. */
const WATCHED = ["tunEnabled", "proxyEnabled", "interface", "lanIP", "lanCIDR", "gateway"] as const;

/** What the stored state was before a change: settings, and the lists when a restore replaced them. */
export interface RollbackPoint {
  settings: Settings;
  subscriptions?: SubscriptionRow[];
  rules?: RuleRecord[];
}

interface Pending {
  deadlineMs: number;
  point: RollbackPoint;
}

/** What `configError` says after a change was undone (`code` is its stable name). */
export interface ProbationNotice {
  code: "probation.rolled_back" | "probation.rolled_back_restart";
  message: string;
}

const NOTICES: Record<ProbationNotice["code"], string> = {
  "probation.rolled_back": `The settings change was not confirmed within ${PROBATION_SECONDS} s, so the previous settings were restored and the core restarted`,
  "probation.rolled_back_restart":
    "The service restarted before the settings change was confirmed, so the previous settings were restored",
};

export interface ProbationOptions {
  store: SqlProxyStore;
  core: CoreControl;
  changes: Changes;
  clock: Clock;
  log: ServiceLog<ProxyProblemCode>;
  /** `<dataDir>/proxy`: the rollback point is kept there while a change waits. */
  dir: string;
  checkMs?: number;
}

function differs(a: Settings, b: Settings): boolean {
  return WATCHED.some((key) => a[key] !== b[key]);
}

/**
 * Confirm or revert: a change of the settings that decide whether the operator can still reach
 * the gateway (TUN, the proxy switch, the interface, the LAN address and range, the gateway)
 * made while the core runs is kept only when confirmed within a minute. Otherwise the state
 * before it is put back and the core restarted. A second change while one waits keeps the
 * first rollback point (the state the operator last confirmed) and gets a new minute.
 *
 * A restart of the service while a change waits undoes it at the next start, whether its
 * minute had run out or not: nobody confirmed it, and the service cannot know whether the
 * operator can still reach the gateway.
 */
export class Probation {
  private pending: Pending | null = null;
  private notice: ProbationNotice | null = null;
  /** Work a change left for its confirmation (removing snapshots a restore dropped). */
  private onConfirm: Array<() => void> = [];
  private timer: NodeJS.Timeout | null = null;
  private reverting: Promise<boolean> | null = null;
  private readonly file: string;

  constructor(private readonly opts: ProbationOptions) {
    this.file = join(opts.dir, PROBATION_FILE);
  }

  /** The state a change is about to replace; called inside the change, before it writes. */
  capture(whole: boolean): RollbackPoint {
    const { store } = this.opts;
    const settings = store.getSettings();
    return whole
      ? { settings, subscriptions: store.subscriptions.rows(), rules: store.rules.list() }
      : { settings };
  }

  /**
   * After a change was applied: starts or renews the probation when it needs one and answers
   * its deadline in Unix seconds (the route sends it as `PROBATION_HEADER`), else runs
   * `cleanup` at once and answers null. Any change ends the notice of an earlier rollback.
   */
  settled(before: RollbackPoint, cleanup?: () => void): number | null {
    this.notice = null;
    const now = this.opts.store.getSettings();
    const needs =
      this.pending !== null || (this.opts.core.running() && differs(before.settings, now));
    if (!needs) {
      cleanup?.();
      return null;
    }
    const point: RollbackPoint = this.pending ? { ...this.pending.point } : { ...before };
    // The first change kept only what it replaced; a later restore also replaces the lists.
    point.subscriptions ??= before.subscriptions;
    point.rules ??= before.rules;
    const deadlineMs = this.opts.clock.now() + PROBATION_SECONDS * 1000;
    this.pending = { deadlineMs, point };
    if (cleanup) this.onConfirm.push(cleanup);
    writeAtomic(this.file, JSON.stringify(this.pending));
    return Math.floor(deadlineMs / 1000);
  }

  /** `{ deadline, remainingSeconds }` while a change waits, else null. */
  status(): { deadline: number; remainingSeconds: number } | null {
    if (!this.pending) return null;
    const left = Math.max(0, Math.ceil((this.pending.deadlineMs - this.opts.clock.now()) / 1000));
    return { deadline: Math.floor(this.pending.deadlineMs / 1000), remainingSeconds: left };
  }

  /** The sentence of the last rollback, until the next change or until dismissed. */
  lastNotice(): ProbationNotice | null {
    return this.notice;
  }

  dismiss(): void {
    this.notice = null;
  }

  /** Keeps the change that waits; 409 when none does. */
  confirm(): void {
    if (!this.pending) throw none();
    this.pending = null;
    rmSync(this.file, { force: true });
    const work = this.onConfirm.splice(0);
    for (const run of work) run();
    this.opts.log.info("settings change confirmed");
  }

  /** Puts the state before the waiting change back now (the operator's "Undo"); 409 when none. */
  async undo(): Promise<void> {
    if (!this.pending) throw none();
    await this.revert(false);
  }

  /** Reverts a change whose minute has run out (the timer calls it; tests call it by hand). */
  async tick(): Promise<void> {
    if (this.pending && this.opts.clock.now() >= this.pending.deadlineMs) await this.revert(true);
  }

  start(checkMs = this.opts.checkMs ?? PROBATION_CHECK_MS): void {
    if (this.timer || checkMs <= 0) return;
    this.timer = setInterval(() => {
      this.tick().catch((err: unknown) => {
        this.opts.log.error(
          "probation.rollback_failed",
          "Undoing an unconfirmed settings change failed",
          { err },
        );
      });
    }, checkMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.reverting?.catch(() => undefined);
  }

  /**
   * At the service's start, before the core starts: a rollback point left by the last run means
   * a change nobody confirmed; the state before it comes back.
   */
  recoverAtStart(): void {
    if (!existsSync(this.file)) return;
    try {
      const saved = JSON.parse(readFileSync(this.file, "utf8")) as Pending;
      this.putBack(saved.point);
      this.notice = {
        code: "probation.rolled_back_restart",
        message: NOTICES["probation.rolled_back_restart"],
      };
      this.opts.log.info("unconfirmed settings change undone at start");
    } catch (err) {
      this.opts.log.error(
        "probation.rollback_failed",
        "Undoing an unconfirmed settings change failed",
        { err },
      );
    }
    rmSync(this.file, { force: true });
  }

  private revert(atDeadline: boolean): Promise<boolean> {
    // One revert at a time: the timer and a request may both ask.
    this.reverting ??= this.revertNow(atDeadline).finally(() => {
      this.reverting = null;
    });
    return this.reverting;
  }

  private async revertNow(atDeadline: boolean): Promise<boolean> {
    const { changes, core, store, log } = this.opts;
    const taken: { point?: RollbackPoint } = {};
    const take = (): boolean => {
      // Decided inside the change queue: a change that renewed the minute meanwhile wins.
      const p = this.pending;
      if (!p || (atDeadline && this.opts.clock.now() < p.deadlineMs)) return false;
      taken.point = p.point;
      this.pending = null;
      this.onConfirm = [];
      rmSync(this.file, { force: true });
      this.putBack(p.point);
      return true;
    };
    let done: boolean;
    try {
      done = await changes.change(take);
    } catch (err) {
      // The core refused the earlier state as a live reload; it is the state to keep all the
      // same (it ran a minute ago), so it stays stored and the restart below loads it.
      if (!taken.point) throw err;
      this.putBack(taken.point);
      done = true;
    }
    if (!done) return false;
    if (core.running()) {
      await core.restart(store.coreInput()).catch((err: unknown) => {
        log.error("probation.rollback_failed", "The core did not restart after a rollback", {
          err,
        });
      });
    }
    if (atDeadline) {
      this.notice = { code: "probation.rolled_back", message: NOTICES["probation.rolled_back"] };
      log.info("unconfirmed settings change rolled back");
    } else {
      log.info("settings change undone by the operator");
    }
    return true;
  }

  private putBack(point: RollbackPoint): void {
    const { store } = this.opts;
    store.transaction(() => {
      store.saveSettings(point.settings);
      if (point.subscriptions) store.subscriptions.replaceAll(point.subscriptions);
      if (point.rules) store.rules.replaceAll(point.rules);
    });
  }
}

function none(): DomainError {
  return new DomainError(
    "conflict",
    "probation.none",
    "No settings change is waiting for confirmation",
  );
}
