import type { Clock } from "../../clock.js";
import { DomainError } from "../../domain-errors.js";
import type { ErrorCode } from "../../http/error-codes.js";
import type { RefreshFailure } from "../store/subscriptions.js";
import { SubscriptionError } from "../subscriptions/errors.js";
import type { SqlProxyStore } from "../store/proxy-store.js";
import type { ProxyAddress } from "../subscriptions/fetch.js";
import type { CoreControl } from "../context.js";
import type { MihomoProxy, Settings, SubscriptionRecord, SubscriptionUsage } from "../types.js";
import { HOUR_MS } from "../../contract/time-units.js";

export const FETCH_TIMEOUT_MS = 30_000;
export const FETCH_MAX_BYTES = 16 * 1024 * 1024;
/** Providers pick the Clash/mihomo format for clients that say `clash.meta`. */
export const FEED_USER_AGENT = "clash.meta/v1.19.0 mihomo/v1.19.0 Gatehouse";

/** The subscription module's two functions (injectable so tests can swap them). */
export interface FeedSource {
  fetch(
    url: string,
    options: {
      timeoutMs: number;
      maxBytes: number;
      userAgent: string;
      signal?: AbortSignal;
      /** Go through this HTTP proxy (the running core's mixed port) instead of directly. */
      proxy?: ProxyAddress;
    },
  ): Promise<{ body: Buffer | string; usage: SubscriptionUsage | null }>;
  /** The real one reads the document in a worker thread, within a time budget. */
  parse(
    body: Buffer | string,
  ): { nodes: MihomoProxy[]; skipped: number } | Promise<{ nodes: MihomoProxy[]; skipped: number }>;
}

export type ApplyCore = (
  pending?: { id: string; nodes: MihomoProxy[] },
  /** Runs once the core took the configuration, before the next change is applied. */
  onApplied?: () => void | Promise<void>,
) => Promise<void>;

/**
 * Why a refresh failed, as it is kept and answered: a subscription failure or a refusal of the
 * core keeps its own code and values; anything else is the generic sentence with its words.
 */
function failureOf(err: unknown): RefreshFailure & { code: ErrorCode } {
  if (err instanceof SubscriptionError || err instanceof DomainError)
    return { message: err.message, code: err.code, params: err.params };
  if (err instanceof Error && err.message)
    return { message: err.message, code: "subscription.refresh_failed", params: {} };
  return {
    message: "The subscription could not be refreshed",
    code: "subscription.refresh_failed",
    params: {},
  };
}

/** Where the running core takes proxy requests, or null when none can be used now. */
export type CoreProxyFinder = () => Promise<ProxyAddress | null>;

/**
 * The running core's mixed port on loopback, when a core answers and the proxy selection can
 * lead somewhere (automatic, or a chosen node); null otherwise.
 */
export function coreProxyFinder(
  core: Pick<CoreControl, "client" | "running">,
  settings: () => Settings,
): CoreProxyFinder {
  return async () => {
    if (!core.running()) return null;
    const s = settings();
    if (s.selectionMode !== "auto" && !s.selectedNode) return null;
    await core.client.version(2000);
    return { host: "127.0.0.1", port: s.mixedPort };
  };
}

/** Failures of the direct download that going through the core may get around. */
const RETRIABLE = new Set([
  "subscription.timeout",
  "subscription.dns",
  "subscription.refused",
  "subscription.tls",
  "subscription.closed",
  "subscription.unreachable",
  "subscription.no_answer",
]);

/** Both attempts failed: one sentence naming each, with each one's code and values. */
function bothFailed(direct: SubscriptionError, proxied: unknown): SubscriptionError {
  const second = failureOf(proxied);
  const params: { direct_code: string; proxied_code: string } & Record<string, string | number> = {
    direct_code: direct.code,
    proxied_code: second.code,
  };
  for (const [k, v] of Object.entries(direct.params)) params[`direct_${k}`] = v;
  for (const [k, v] of Object.entries(second.params)) params[`proxied_${k}`] = v;
  return new SubscriptionError(
    "subscription.both_failed",
    `Direct download: ${direct.message}. Through the proxy core: ${second.message}`,
    { params, cause: proxied },
  );
}

/**
 * Stale: refreshed automatically (`intervalHours` > 0) but its last success, or its
 * creation when it never had one, is more than twice the interval ago.
 */
export function isStale(
  sub: Pick<SubscriptionRecord, "intervalHours" | "updatedAt"> & { createdAt?: string | null },
  now: number,
): boolean {
  if (!(sub.intervalHours > 0)) return false;
  const since = sub.updatedAt ?? sub.createdAt ?? null;
  if (!since) return false;
  return now - Date.parse(since) > 2 * sub.intervalHours * HOUR_MS;
}

/**
 * Refreshes subscriptions: download, parse, apply to the core with the new nodes, and only
 * then make the new snapshot current. Any failure keeps the previous snapshot and records
 * the error. One refresh per subscription at a time; a second request joins the first.
 */
export class Refresher {
  private readonly running = new Map<string, Promise<void>>();
  private readonly aborts = new Set<AbortController>();

  constructor(
    private readonly store: SqlProxyStore,
    private readonly source: FeedSource,
    private readonly applyCore: ApplyCore,
    private readonly clock: Clock,
    private readonly log: (line: string) => void,
    /** The running core's mixed port, for a second try when the direct download fails. */
    private readonly viaCore: CoreProxyFinder = async () => null,
  ) {}

  isRefreshing(id: string): boolean {
    return this.running.has(id);
  }

  /** Resolves when the refresh succeeded; rejects with a DomainError (answered 400). */
  refresh(id: string): Promise<void> {
    const existing = this.running.get(id);
    if (existing) return existing;
    const run = this.run(id).finally(() => this.running.delete(id));
    this.running.set(id, run);
    return run;
  }

  /** Cancels downloads in flight and waits until every refresh has ended (shutdown). */
  async abortAll(): Promise<void> {
    for (const a of this.aborts) a.abort();
    await Promise.allSettled([...this.running.values()]);
  }

  /**
   * The feed, directly; when that fails on the network (not with an HTTP status) and a core
   * is up, once more through the core's mixed port, where the nodes may reach what the
   * gateway cannot.
   */
  private async download(id: string, url: string, signal: AbortSignal) {
    const options = {
      timeoutMs: FETCH_TIMEOUT_MS,
      maxBytes: FETCH_MAX_BYTES,
      userAgent: FEED_USER_AGENT,
      signal,
    };
    try {
      return await this.source.fetch(url, options);
    } catch (err) {
      if (!(err instanceof SubscriptionError) || !RETRIABLE.has(err.code) || signal.aborted)
        throw err;
      const proxy = await this.viaCore().catch(() => null);
      if (!proxy || signal.aborted) throw err;
      this.log(`subscription ${id}: direct download failed (${err.code}); trying through the core`);
      try {
        return await this.source.fetch(url, { ...options, proxy });
      } catch (second) {
        throw bothFailed(err, second);
      }
    }
  }

  private async run(id: string): Promise<void> {
    const sub = this.store.subscriptions.get(id);
    if (!sub) throw new DomainError("invalid", "subscription.unknown", "Unknown subscription");
    const abort = new AbortController();
    this.aborts.add(abort);
    try {
      const feed = await this.download(id, sub.url, abort.signal);
      const parsed = await this.source.parse(feed.body);
      if (parsed.nodes.length === 0) {
        throw new SubscriptionError(
          "subscription.no_nodes",
          "The subscription contains no valid nodes",
          { params: { skipped: parsed.skipped } },
        );
      }
      const staged = await this.store.snapshots.stage(id, parsed.nodes);
      try {
        await this.applyCore({ id, nodes: parsed.nodes }, async () => {
          if (!this.store.subscriptions.get(id)) return; // deleted meanwhile
          await staged.commit();
          this.store.subscriptions.recordSuccess(
            id,
            this.clock.now(),
            feed.usage,
            parsed.nodes.length,
          );
        });
      } finally {
        await staged.discard();
      }
      if (parsed.skipped > 0) {
        this.log(`subscription ${id}: ${parsed.skipped} invalid node(s) skipped`);
      }
    } catch (err) {
      const failure = failureOf(err);
      if (this.store.subscriptions.get(id)) {
        this.store.subscriptions.recordFailure(id, this.clock.now(), failure);
      }
      // The code and its values were checked where the failure was first made.
      throw err instanceof DomainError && err.kind === "invalid"
        ? err
        : new DomainError("invalid", failure.code as "server.internal", failure.message, {
            params: failure.params,
            cause: err,
          });
    } finally {
      this.aborts.delete(abort);
    }
  }
}
