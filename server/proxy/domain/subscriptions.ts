import {
  ID_PATTERN,
  MAX_SUBSCRIPTIONS,
  type Subscription,
  type SubscriptionInput,
} from "../../contract/proxy.js";
import type { Clock } from "../../clock.js";
import { DomainError } from "../../domain-errors.js";
import { newId } from "../store/ids.js";
import type { SqlProxyStore } from "../store/proxy-store.js";
import type { Changes } from "./changes.js";
import { isStale, type Refresher } from "./refresher.js";

const unknownSubscription = () =>
  new DomainError("not_found", "subscription.unknown", "Unknown subscription");

/**
 * The subscriptions the operator keeps: listed with their refresh state, created, edited,
 * deleted and refreshed. A change to an existing one reaches the core through the change
 * queue (its nodes come or go); a new one has no nodes yet.
 */
export class Subscriptions {
  constructor(
    private readonly store: SqlProxyStore,
    private readonly changes: Changes,
    private readonly refresher: Refresher,
    private readonly clock: Clock,
  ) {}

  list(): Subscription[] {
    const now = this.clock.now();
    return this.store.subscriptions.list().map((s) => ({
      ...s,
      refreshing: this.refresher.isRefreshing(s.id),
      // Refreshed on a schedule, yet nothing new for more than twice its interval.
      stale: isStale(s, now),
    }));
  }

  /** The id, when a subscription has it; refused as unknown otherwise. */
  known(id: string): string {
    if (!ID_PATTERN.test(id) || !this.store.subscriptions.get(id)) throw unknownSubscription();
    return id;
  }

  /** The name of a subscription ("" once it is gone), for the words of a failure. */
  nameOf(id: string): string {
    return this.store.subscriptions.get(id)?.name ?? "";
  }

  /** Adds a subscription (checked against the limit and the others' addresses); its id. */
  create(input: SubscriptionInput): string {
    const id = newId();
    const created = this.store.transaction(() => {
      if (this.store.subscriptions.count() >= MAX_SUBSCRIPTIONS) return false;
      this.refuseSameUrl(input.url);
      this.store.subscriptions.create(id, input, this.clock.now());
      return true;
    });
    if (!created)
      throw new DomainError(
        "invalid",
        "subscription.limit",
        `At most ${MAX_SUBSCRIPTIONS} subscriptions can be kept`,
        { params: { max: MAX_SUBSCRIPTIONS } },
      );
    return id;
  }

  /** Enabling or disabling changes which nodes the core gets; a stopped core stages it. */
  async edit(id: string, input: SubscriptionInput): Promise<void> {
    await this.changes.change(() => {
      this.refuseSameUrl(input.url, id);
      if (!this.store.subscriptions.edit(id, input)) throw unknownSubscription();
    });
  }

  /** Deletes it; its nodes' snapshot goes once the core has the configuration without them. */
  async remove(id: string): Promise<void> {
    await this.changes.change(
      () => {
        if (!this.store.subscriptions.remove(id)) throw unknownSubscription();
      },
      () => this.store.snapshots.remove(id),
    );
  }

  refresh(id: string): Promise<void> {
    return this.refresher.refresh(id);
  }

  /** One feed kept twice would only double its nodes: the second is refused. */
  private refuseSameUrl(url: string, exceptId = ""): void {
    const other = this.store.subscriptions.sameUrl(url, exceptId);
    if (!other) return;
    throw new DomainError(
      "conflict",
      "subscription.duplicate",
      `The subscription "${other.name}" already uses this address`,
      { params: { name: other.name }, extra: { subscriptionId: other.id } },
    );
  }
}
