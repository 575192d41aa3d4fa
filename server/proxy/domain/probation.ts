import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Clock } from "../../clock.js";
import { DomainError } from "../../domain-errors.js";
import { crashPoint } from "../../fault-points.js";
import type { ServiceLog } from "../../log.js";
import type { ProxyProblemCode } from "../../problem-codes.js";
import type { CoreControl } from "../context.js";
import { removeDurable, writeDurable } from "../core/files.js";
import type { Changes } from "./changes.js";
import type { SqlProxyStore } from "../store/proxy-store.js";
import type { Settings } from "../types.js";
import {
  copyState,
  forgetDropped,
  stepBetween,
  undoSteps,
  type ProbationStep,
  type StateCopy,
} from "./probation-steps.js";
import { readPending, type Pending } from "./probation-file.js";
import type { z } from "zod";
import type { ProbationNoticeSchema } from "../../contract/proxy-status.js";

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

/** What `configError` says after a change was undone (`code` is its stable name). */
export type ProbationNotice = z.output<typeof ProbationNoticeSchema>;

const NOTICES: Record<ProbationNotice["code"], string> = {
  "probation.rolled_back": `The settings change was not confirmed within ${PROBATION_SECONDS} s, so the previous settings were restored and the core restarted`,
  "probation.rolled_back_restart":
    "The service restarted before the settings change was confirmed, so the previous settings were restored",
};

const notice = (code: ProbationNotice["code"]): ProbationNotice => ({
  code,
  message: NOTICES[code],
});

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
 * made while the core runs is kept only when confirmed within a minute. Otherwise what it
 * changed is undone and the core restarted. A second change of the settings (or a restore)
 * while one waits joins it with a new minute: undoing undoes both, back to the state the
 * operator last confirmed. Other changes made meanwhile (rules, subscriptions, the node
 * choice) are not part of it and stay.
 *
 * The rollback point is on disk (synced) before the change is committed, so a crash at any
 * moment leaves either no change or a change with its rollback point. A restart undoes a
 * change nobody confirmed, whether its minute had run out or not: the service cannot know
 * whether the operator can still reach the gateway.
 *
 * Confirming, undoing and the deadline take their turn in the change queue, so a confirmation
 * racing the deadline has exactly one outcome, the one that came first.
 */
export class Probation {
  private pending: Pending | null = null;
  private notice: ProbationNotice | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** The deadline's revert while it runs (the timer asks every second). */
  private expiring: Promise<boolean> | null = null;
  /** Every revert under way, so `stop` can wait for them. */
  private readonly reverting = new Set<Promise<boolean>>();
  private undoneAtStart = false;
  private readonly file: string;

  constructor(private readonly opts: ProbationOptions) {
    this.file = join(opts.dir, PROBATION_FILE);
  }

  /**
   * Makes a change of the settings (`lists`: and of the subscriptions and rules, a restore)
   * through the change queue. When it needs confirming, its rollback point is written to disk
   * before the change is committed, and the answer is the deadline in Unix seconds (the route
   * sends it as `PROBATION_HEADER`); else null. Any such change ends the notice of an earlier
   * rollback.
   */
  async change(lists: boolean, mutate: () => void): Promise<number | null> {
    const { changes, store, core, clock } = this.opts;
    const previous = { pending: this.pending };
    let next: Pending | null = null;
    let step: ProbationStep | null = null;
    let written = false;
    try {
      await changes.change(
        () => {
          const before = copyState(store, lists);
          mutate();
          const after: StateCopy = copyState(store, lists);
          step = stepBetween(before, after);
          previous.pending = this.pending;
          if (!this.pending && !(core.running() && differs(before.settings, after.settings))) {
            return;
          }
          next = {
            deadlineMs: clock.now() + PROBATION_SECONDS * 1000,
            steps: [...(this.pending?.steps ?? []), step],
          };
          crashPoint("proxy.before-probation-file");
          // Inside the transaction: the rollback point is on disk before the change commits.
          writeDurable(this.file, JSON.stringify(next));
          written = true;
        },
        () => {
          this.notice = null;
          if (next) this.pending = next;
          else if (step) forgetDropped(store, [step]);
        },
      );
    } catch (err) {
      // The change was put back (or never made): so is its rollback point.
      if (written) this.persist(previous.pending);
      throw err;
    }
    return next ? Math.floor((next as Pending).deadlineMs / 1000) : null;
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

  /** Keeps the change that waits; 409 when none does (never came, or already undone). */
  async confirm(): Promise<void> {
    await this.opts.changes.serial(() => {
      const p = this.pending;
      if (!p) throw none();
      this.pending = null;
      removeDurable(this.file);
      // Snapshots of subscriptions the change dropped were kept for an undo; not any more.
      forgetDropped(this.opts.store, p.steps);
    });
    this.opts.log.info("settings change confirmed");
  }

  /** Puts the state before the waiting change back now (the operator's "Undo"); 409 when none. */
  async undo(): Promise<void> {
    if (!this.pending || !(await this.revert(false))) throw none();
  }

  /** Reverts a change whose minute has run out (the timer calls it; tests call it by hand). */
  async tick(): Promise<void> {
    if (!this.pending || this.opts.clock.now() < this.pending.deadlineMs) return;
    this.expiring ??= this.revert(true).finally(() => {
      this.expiring = null;
    });
    await this.expiring;
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
    await Promise.allSettled([...this.reverting]);
  }

  /**
   * At the service's start, before the core starts and before the snapshots are tidied: a
   * rollback point left by the last run means a change nobody confirmed; it is undone.
   */
  recoverAtStart(): void {
    if (!existsSync(this.file)) return;
    const { store, log } = this.opts;
    try {
      const saved = readPending(this.file, store);
      undoSteps(store, saved.steps);
      forgetDropped(store, saved.steps);
      this.notice = notice("probation.rolled_back_restart");
      this.undoneAtStart = true;
      // Not something the operator chose: it stays in the recent problems after the banner.
      log.warn(
        "probation.undone_at_start",
        "An unconfirmed settings change was undone as the service started",
      );
    } catch (err) {
      log.error("probation.rollback_failed", "Undoing an unconfirmed settings change failed", {
        err,
      });
    }
    removeDurable(this.file);
  }

  /**
   * Whether a start undid a change: it was made while the core ran, so a core the crashed run
   * left behind may still run it, and the core is started again on the state undone.
   */
  get undidAtStart(): boolean {
    return this.undoneAtStart;
  }

  /** The rollback point on disk as `pending` says (none: no file). */
  private persist(pending: Pending | null): void {
    if (pending) writeDurable(this.file, JSON.stringify(pending));
    else removeDurable(this.file);
  }

  private revert(atDeadline: boolean): Promise<boolean> {
    const run = this.revertNow(atDeadline);
    this.reverting.add(run);
    return run.finally(() => this.reverting.delete(run));
  }

  private async revertNow(atDeadline: boolean): Promise<boolean> {
    const { changes, core, store, log } = this.opts;
    let taken: Pending | null = null;
    const done = await changes.change(
      () => {
        // Decided in the queue's turn: a confirmation or a change that renewed the minute
        // meanwhile wins.
        const p = this.pending;
        if (!p || (atDeadline && this.opts.clock.now() < p.deadlineMs)) return false;
        taken = p;
        this.pending = null;
        if (atDeadline) this.notice = notice("probation.rolled_back");
        undoSteps(store, p.steps);
        return true;
      },
      (undone) => {
        if (!undone || !taken) return;
        crashPoint("proxy.probation-reverted");
        // The undo is committed; only now may its rollback point go.
        removeDurable(this.file);
        forgetDropped(store, (taken as Pending).steps);
      },
      // The core may refuse the earlier state as a live reload; it is the state to keep all
      // the same (it ran a minute ago): it stays stored and the restart below loads it.
      { keepWhenRefused: true },
    );
    if (!done) return false;
    if (core.running()) {
      await core.restart(store.coreInput()).catch((err: unknown) => {
        log.error("probation.rollback_failed", "The core did not restart after a rollback", {
          err,
        });
      });
    }
    if (atDeadline)
      log.warn(
        "probation.undone_at_deadline",
        "An unconfirmed settings change was undone at its deadline",
      );
    else log.info("settings change undone by the operator");
    return true;
  }
}

function none(): DomainError {
  return new DomainError(
    "conflict",
    "probation.none",
    "No settings change is waiting for confirmation",
  );
}
