import type { Clock } from "../../clock.js";
import type { LineLog } from "../../log.js";
import { problem } from "../../problem-codes.js";
import type { Refresher } from "./refresher.js";
import type { SqlProxyStore } from "../store/proxy-store.js";
import { HOUR_MS, MINUTE_MS } from "../../contract/time-units.js";

export const SCHEDULER_INTERVAL_MS = MINUTE_MS;

/**
 * Refreshes enabled subscriptions with `intervalHours > 0` when their last attempt is older
 * than the interval (never attempted: at the next check). Checks run on a timer, one at a
 * time; refreshes within a check run one after another.
 */
export class Scheduler {
  private timer: NodeJS.Timeout | null = null;
  private current: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly store: SqlProxyStore,
    private readonly refresher: Refresher,
    private readonly clock: Clock,
    private readonly log: LineLog,
    private readonly intervalMs = SCHEDULER_INTERVAL_MS,
  ) {}

  start(): void {
    if (this.timer || this.intervalMs <= 0) return;
    this.stopped = false;
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.current?.catch(() => undefined);
  }

  /** Ids of the subscriptions due now. */
  due(): string[] {
    const now = this.clock.now();
    return this.store.subscriptions
      .list()
      .filter((s) => {
        if (!s.enabled || s.intervalHours <= 0) return false;
        const last = s.attemptedAt ?? s.updatedAt;
        return last === null || now - Date.parse(last) >= s.intervalHours * HOUR_MS;
      })
      .map((s) => s.id);
  }

  /** One check; a check still running is joined instead of overlapped. */
  tick(): Promise<void> {
    if (this.current) return this.current;
    this.current = this.runDue().finally(() => {
      this.current = null;
    });
    return this.current;
  }

  private async runDue(): Promise<void> {
    for (const id of this.due()) {
      if (this.stopped) return;
      try {
        await this.refresher.refresh(id);
      } catch (err) {
        // Named as the operator named it; the address is never logged (it can hold a token).
        const name = this.store.subscriptions.get(id)?.name ?? id;
        this.log(
          `Scheduled refresh of subscription "${name}" failed`,
          problem("warn", "subscription.scheduled_refresh_failed", { params: { name }, err }),
        );
      }
    }
  }
}
