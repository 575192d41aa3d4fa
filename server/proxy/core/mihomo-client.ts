import type { CoreClient, CoreProxy } from "../context.js";
import type { LiveColumns } from "../domain/live-delays.js";
import { sharedCoreReader, type CoreReader, type LentBody } from "./core-reader.js";
import type {
  AccountingReading,
  CoreConnections,
  CoreCounters,
  ReaderJob,
  ReaderResult,
  StreamOptions,
} from "./core-shapes.js";
import { CoreApiError } from "./errors.js";
import { apiError, limitedText, mapFetchError, num } from "./answers.js";
import { readNdjson } from "./ndjson-stream.js";

export type { CoreConnection, CoreConnections, StreamOptions } from "./core-shapes.js";

export interface CoreProvider {
  name: string;
  type: string;
  vehicleType: string;
  proxies: CoreProxy[];
  updatedAt?: string;
  subscriptionInfo?: { Upload?: number; Download?: number; Total?: number; Expire?: number };
}

/** Everything the core layer and the live routes use of the controller. */
export interface CoreApi extends CoreClient {
  versionInfo(timeoutMs?: number): Promise<{ meta: boolean; version: string }>;
  configs(timeoutMs?: number): Promise<Record<string, unknown>>;
  patchConfigs(partial: Record<string, unknown>, timeoutMs?: number): Promise<void>;
  putConfigs(
    source: { path: string } | { payload: string },
    force: boolean,
    timeoutMs?: number,
  ): Promise<void>;
  selectProxy(group: string, name: string, timeoutMs?: number): Promise<void>;
  delay(name: string, url: string, timeoutMs: number): Promise<number>;
  providers(timeoutMs?: number): Promise<Record<string, CoreProvider>>;
  connections(timeoutMs?: number): Promise<CoreConnections>;
  /**
   * `GET /connections` with each connection's `chainLabels`, as the finished JSON answer
   * (UTF-8), read, labelled and written off the event loop; `release` it once sent.
   */
  connectionsJson(
    subscriptions: ReadonlyArray<{ id: string; name: string }>,
    timeoutMs?: number,
  ): Promise<LentBody>;
  /** Every proxy's last delay and UDP flag from `GET /proxies`, read off the event loop. */
  liveColumns(timeoutMs?: number): Promise<LiveColumns>;
  /** The totals and the count of `GET /connections`, read off the event loop. */
  counters(timeoutMs?: number): Promise<CoreCounters>;
  /**
   * Bytes per source address since the previous reading of the count `key`, with the totals,
   * computed from `GET /connections` off the event loop.
   */
  accounting(key: string, timeoutMs?: number): Promise<AccountingReading>;
  closeConnection(id: string, timeoutMs?: number): Promise<void>;
  closeConnections(timeoutMs?: number): Promise<void>;
  traffic(
    onItem: (item: { up: number; down: number }) => void,
    opts?: StreamOptions,
  ): Promise<void>;
  logs(
    level: string,
    onItem: (item: { type: string; payload: string }) => void,
    opts?: StreamOptions,
  ): Promise<void>;
}

export interface MihomoClientOptions {
  port: number;
  host?: string;
  /** The controller secret; a function so a re-created secret is picked up. */
  secret: string | (() => string);
  defaultTimeoutMs?: number;
  /** Reads the big answers off the event loop (default: the process's shared reader). */
  reader?: CoreReader;
  /** Answers longer than this are refused unread (default 64 MiB). */
  maxAnswerBytes?: number;
}

interface RequestOptions {
  body?: unknown;
  timeoutMs?: number;
  query?: Record<string, string>;
}

const INT16_MAX = 32767;
/** Grace on top of a delay test's own timeout before the HTTP call gives up. */
const DELAY_GRACE_MS = 2000;
/** The longest answer read on the service's own thread (the big ones go to the core reader). */
const DEFAULT_ANSWER_LIMIT = 64 * 1024 * 1024;

/** Typed client of mihomo's external controller (HTTP, Bearer secret, per-call deadline). */
export class MihomoClient implements CoreApi {
  private readonly base: string;
  private readonly host: string;
  private readonly port: number;
  private readonly secret: () => string;
  private readonly defaultTimeoutMs: number;
  private readonly reader: CoreReader | undefined;
  private readonly maxAnswerBytes: number;

  constructor(opts: MihomoClientOptions) {
    this.host = opts.host ?? "127.0.0.1";
    this.port = opts.port;
    this.base = `http://${this.host}:${opts.port}`;
    const s = opts.secret;
    this.secret = typeof s === "function" ? s : () => s;
    this.defaultTimeoutMs = opts.defaultTimeoutMs ?? 5000;
    this.reader = opts.reader;
    this.maxAnswerBytes = opts.maxAnswerBytes ?? DEFAULT_ANSWER_LIMIT;
  }

  /** The controller as the reader's worker reaches it (the secret as it is now). */
  private target(): { host: string; port: number; secret: string } {
    return { host: this.host, port: this.port, secret: this.secret() };
  }

  private url(path: string, query?: Record<string, string>): string {
    const q = query ? `?${new URLSearchParams(query).toString()}` : "";
    return `${this.base}${path}${q}`;
  }

  private headers(json: boolean): Record<string, string> {
    const h: Record<string, string> = {};
    const secret = this.secret();
    if (secret) h.Authorization = `Bearer ${secret}`;
    if (json) h["Content-Type"] = "application/json";
    return h;
  }

  /** Sends one call; non-2xx answers become CoreApiError, never data. */
  private async call<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const timeoutMs = opts.timeoutMs ?? this.defaultTimeoutMs;
    try {
      const res = await fetch(this.url(path, opts.query), {
        method,
        headers: this.headers(opts.body !== undefined),
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!res.ok) throw await apiError(res);
      if (res.status === 204) return undefined as T;
      const text = await limitedText(res, this.maxAnswerBytes);
      if (!text.trim()) return undefined as T;
      try {
        return JSON.parse(text) as T;
      } catch (err) {
        throw new CoreApiError(res.status, `The proxy core sent invalid JSON (${String(err)})`);
      }
    } catch (err) {
      if (err instanceof CoreApiError) throw err;
      throw mapFetchError(err, timeoutMs);
    }
  }

  async versionInfo(timeoutMs?: number): Promise<{ meta: boolean; version: string }> {
    const body = await this.call<{ meta?: unknown; version?: unknown }>("GET", "/version", {
      timeoutMs,
    });
    if (typeof body?.version !== "string") {
      throw new CoreApiError(200, "The proxy core sent no version");
    }
    return { meta: body.meta === true, version: body.version };
  }

  async version(timeoutMs?: number): Promise<string> {
    return (await this.versionInfo(timeoutMs)).version;
  }

  async configs(timeoutMs?: number): Promise<Record<string, unknown>> {
    return (await this.call<Record<string, unknown>>("GET", "/configs", { timeoutMs })) ?? {};
  }

  async patchConfigs(partial: Record<string, unknown>, timeoutMs?: number): Promise<void> {
    await this.call("PATCH", "/configs", { body: partial, timeoutMs });
  }

  async putConfigs(
    source: { path: string } | { payload: string },
    force: boolean,
    timeoutMs?: number,
  ): Promise<void> {
    await this.call("PUT", "/configs", {
      body: source,
      query: force ? { force: "true" } : undefined,
      timeoutMs: timeoutMs ?? 30_000,
    });
  }

  async proxies(timeoutMs?: number): Promise<Record<string, CoreProxy>> {
    const body = await this.call<{ proxies?: Record<string, CoreProxy> }>("GET", "/proxies", {
      timeoutMs,
    });
    const out: Record<string, CoreProxy> = {};
    for (const [name, p] of Object.entries(body?.proxies ?? {})) {
      out[name] = { ...p, history: Array.isArray(p.history) ? p.history : [] };
    }
    return out;
  }

  async selectProxy(group: string, name: string, timeoutMs?: number): Promise<void> {
    await this.call("PUT", `/proxies/${encodeURIComponent(group)}`, { body: { name }, timeoutMs });
  }

  async delay(name: string, url: string, timeoutMs: number): Promise<number> {
    const t = Math.max(1, Math.min(INT16_MAX, Math.round(timeoutMs)));
    const body = await this.call<{ delay?: unknown }>(
      "GET",
      `/proxies/${encodeURIComponent(name)}/delay`,
      { query: { url, timeout: String(t) }, timeoutMs: t + DELAY_GRACE_MS },
    );
    return num(body?.delay);
  }

  async healthcheck(
    provider: string,
    coreName: string,
    url: string,
    timeoutMs: number,
  ): Promise<number> {
    const t = Math.max(1, Math.min(INT16_MAX, Math.round(timeoutMs)));
    const path = `/providers/proxies/${encodeURIComponent(provider)}/${encodeURIComponent(coreName)}/healthcheck`;
    const body = await this.call<{ delay?: unknown }>("GET", path, {
      query: { url, timeout: String(t) },
      timeoutMs: t + DELAY_GRACE_MS,
    });
    return num(body?.delay);
  }

  async providers(timeoutMs?: number): Promise<Record<string, CoreProvider>> {
    const body = await this.call<{ providers?: Record<string, CoreProvider> }>(
      "GET",
      "/providers/proxies",
      { timeoutMs },
    );
    return body?.providers ?? {};
  }

  async connections(timeoutMs?: number): Promise<CoreConnections> {
    const body = await this.call<Partial<CoreConnections> | undefined>("GET", "/connections", {
      timeoutMs,
    });
    return {
      ...body,
      downloadTotal: num(body?.downloadTotal),
      uploadTotal: num(body?.uploadTotal),
      // mihomo sends `null` when there are none
      connections: Array.isArray(body?.connections) ? body.connections : [],
    };
  }

  async connectionsJson(
    subscriptions: ReadonlyArray<{ id: string; name: string }>,
    timeoutMs?: number,
  ): Promise<LentBody> {
    return (this.reader ?? sharedCoreReader()).readConnections({
      kind: "connections",
      target: this.target(),
      timeoutMs: timeoutMs ?? this.defaultTimeoutMs,
      subscriptions: subscriptions.map(({ id, name }) => ({ id, name })),
    });
  }

  /** One read in the core reader's worker thread, of the kind asked. */
  private async readOff<K extends "live-nodes" | "counters" | "accounting">(
    kind: K,
    timeoutMs: number | undefined,
    extra: { key?: string } = {},
  ): Promise<Extract<ReaderResult, { kind: K }>> {
    const job = { kind, target: this.target(), timeoutMs: timeoutMs ?? this.defaultTimeoutMs };
    const result = await (this.reader ?? sharedCoreReader()).read({
      ...job,
      ...extra,
    } as ReaderJob);
    if (result.kind !== kind) throw new Error("The core reader answered another read");
    return result as Extract<ReaderResult, { kind: K }>;
  }

  async liveColumns(timeoutMs?: number): Promise<LiveColumns> {
    return (await this.readOff("live-nodes", timeoutMs)).columns;
  }

  async counters(timeoutMs?: number): Promise<CoreCounters> {
    return (await this.readOff("counters", timeoutMs)).counters;
  }

  async accounting(key: string, timeoutMs?: number): Promise<AccountingReading> {
    return (await this.readOff("accounting", timeoutMs, { key })).reading;
  }

  async closeConnection(id: string, timeoutMs?: number): Promise<void> {
    await this.call("DELETE", `/connections/${encodeURIComponent(id)}`, { timeoutMs });
  }

  async closeConnections(timeoutMs?: number): Promise<void> {
    await this.call("DELETE", "/connections", { timeoutMs });
  }

  traffic(onItem: (item: { up: number; down: number }) => void, opts?: StreamOptions) {
    return this.stream(
      "/traffic",
      undefined,
      (v) => {
        const o = v as { up?: unknown; down?: unknown };
        onItem({ up: num(o?.up), down: num(o?.down) });
      },
      opts,
    );
  }

  logs(
    level: string,
    onItem: (item: { type: string; payload: string }) => void,
    opts?: StreamOptions,
  ) {
    return this.stream(
      "/logs",
      { level },
      (v) => {
        const o = v as { type?: unknown; payload?: unknown };
        onItem({
          type: typeof o?.type === "string" ? o.type : "info",
          payload: typeof o?.payload === "string" ? o.payload : "",
        });
      },
      opts,
    );
  }

  private stream(
    path: string,
    query: Record<string, string> | undefined,
    onItem: (item: unknown) => void,
    opts: StreamOptions = {},
  ): Promise<void> {
    const url = this.url(path, query);
    return readNdjson(url, this.headers(false), onItem, opts, this.defaultTimeoutMs);
  }
}
