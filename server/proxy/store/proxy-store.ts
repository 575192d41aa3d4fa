import type { Db } from "../../db/open.js";
import type { ProxyStore } from "../context.js";
import {
  DEFAULT_SETTINGS,
  type CoreInput,
  type MihomoProxy,
  type RuleRecord,
  type Settings,
  type SubscriptionRecord,
} from "../types.js";
import { DevicesRepo } from "./devices.js";
import { RulesRepo } from "./rules.js";
import { SnapshotStore } from "./snapshots.js";
import { SubscriptionsRepo } from "./subscriptions.js";
import { TrafficRepo } from "./traffic.js";

const SETTINGS_KEY = "settings";

/** The stored state of the proxy service: settings, subscriptions (+ snapshots) and rules. */
export class SqlProxyStore implements ProxyStore {
  readonly subscriptions: SubscriptionsRepo;
  readonly rules: RulesRepo;
  readonly snapshots: SnapshotStore;
  /** The LAN devices, their addresses, names and policies. */
  readonly devices: DevicesRepo;
  /** What each device moved, per hour and per day. */
  readonly traffic: TrafficRepo;
  private readonly getMeta;
  private readonly setMeta;

  constructor(
    private readonly db: Db,
    proxyDir: string,
  ) {
    this.subscriptions = new SubscriptionsRepo(db);
    this.rules = new RulesRepo(db);
    this.snapshots = new SnapshotStore(proxyDir);
    this.devices = new DevicesRepo(db);
    this.traffic = new TrafficRepo(db);
    this.getMeta = db.prepare("SELECT value FROM meta WHERE key = ?");
    this.setMeta = db.prepare(
      "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    );
  }

  /**
   * Start-up: drops the snapshot files no stored subscription owns (see
   * `SnapshotStore.recover`). Called once a change nobody confirmed has been undone, since
   * that may bring back subscriptions whose snapshots were kept for it.
   */
  recoverSnapshots(): number {
    return this.snapshots.recover(this.subscriptions.rows().map((r) => r.id));
  }

  /** Runs `work` in one transaction (nested calls join the outer one). */
  transaction<T>(work: () => T): T {
    return this.db.transaction(work)();
  }

  /** Whether the database is still open (false once the service closed it). */
  get open(): boolean {
    return this.db.open;
  }

  /** Closes the database; the last thing the service does. */
  close(): void {
    this.db.close();
  }

  getSettings(): Settings {
    const row = this.getMeta.get(SETTINGS_KEY) as { value: string } | undefined;
    if (!row) return { ...DEFAULT_SETTINGS };
    // Defaults first so a field added in a later version gets its default.
    return { ...DEFAULT_SETTINGS, ...(JSON.parse(row.value) as Partial<Settings>) };
  }

  saveSettings(settings: Settings): void {
    this.setMeta.run(SETTINGS_KEY, JSON.stringify(settings));
  }

  /** A small service flag kept across restarts. */
  getFlag(key: string): boolean {
    const row = this.getMeta.get(`flag.${key}`) as { value: string } | undefined;
    return row?.value === "1";
  }

  setFlag(key: string, value: boolean): void {
    this.setMeta.run(`flag.${key}`, value ? "1" : "0");
  }

  listSubscriptions(): SubscriptionRecord[] {
    return this.subscriptions.list();
  }

  listRules(): RuleRecord[] {
    return this.rules.list();
  }

  /** Nodes of a subscription's current snapshot. */
  nodes(subscriptionId: string): MihomoProxy[] {
    return this.snapshots.read(subscriptionId);
  }

  /**
   * The compiler input; `pending` replaces one subscription's nodes (a refresh is applied
   * to the core before its snapshot becomes current).
   */
  coreInput(pending?: { id: string; nodes: MihomoProxy[] }): CoreInput {
    return {
      settings: this.getSettings(),
      subscriptions: this.subscriptions
        .list()
        .filter((s) => s.enabled)
        .map((s) => ({
          id: s.id,
          name: s.name,
          nodes: pending && pending.id === s.id ? pending.nodes : this.nodes(s.id),
        })),
      rules: this.rules.list(),
      devices: this.devices.policies(),
    };
  }

  nodeCount(): number {
    return this.subscriptions
      .list()
      .filter((s) => s.enabled)
      .reduce((n, s) => n + s.nodeCount, 0);
  }
}
