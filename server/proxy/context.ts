import type { Clock } from "../clock.js";
import type { Logger } from "pino";
import type { LineLog, ServiceLog } from "../log.js";
import type { ProxyProblemCode } from "../problem-codes.js";
import type { RouteTable } from "../http/route-table.js";
import type { ProxyAccess } from "./auth/guards.js";
import type { PROXY_API } from "../contract/proxy-api.js";
import type { CoreInput, RuleRecord, Settings, SubscriptionRecord } from "./types.js";

/** Options of the proxy management service factory (`createProxyService`). */
export interface ProxyServiceOptions {
  /** The Gatehouse data dir; this service keeps everything under `<dataDir>/proxy`. */
  dataDir: string;
  clock?: Clock;
  /** The process's JSON logger (the host passes one child per service). */
  logger?: Logger;
  /** Without `logger`: a sink for the JSON lines (tests pass `() => undefined`). */
  log?: (line: string) => void;
  /**
   * The core the operator named (`--core-bin`): it always runs when given. Without it the
   * service runs the core it installed in `<dataDir>/core`, else `coreFallback`.
   */
  coreBin?: string;
  /** The bundled core or one on PATH (see server/config.ts). */
  coreFallback?: { path: string; source: "bundled" | "path" };
  coreService?: "process" | "systemd";
  coreUnit?: string;
  /** Where the update check looks (mihomo's latest-release API by default). */
  coreReleaseURL?: string;
  /** Where `POST /system/geodata/update` downloads (`--geodata-url`). */
  geodataURL?: string;
  /** Folders of geodata shipped with the app (default: beside the core, resources/core). */
  geodataDirs?: string[];
  /** Port of the core's external controller on 127.0.0.1 (9090 in production). */
  controllerPort?: number;
  /** Extra trusted CA (PEM) for connectivity tests; tests point the fake core at a local TLS site. */
  connectivityCA?: string;
  /**
   * A DHCP leases file read for device names (`--dhcp-leases`): dnsmasq's leases file, or the
   * state file of OpenWrt's odhcpd.
   */
  dhcpLeases?: string;
  /**
   * The neighbour (ARP) table read for the devices' MAC addresses: `/proc/net/arp` on Linux
   * by default, the `arp` command's listing elsewhere; tests give a file, or null for none
   * (devices are then known by their IP address).
   */
  neighbourTable?: string | null;
  /** Network interfaces of this machine; injectable so TUN validation can be tested. */
  networkInterfaces?: () => NodeJS.Dict<import("node:os").NetworkInterfaceInfo[]>;
  /** Built web UI to serve at `/` (renderer/dist); absent in API-only tests. */
  staticDir?: string;
  /**
   * Host names (besides `localhost` and this machine's IP addresses) the console answers on,
   * e.g. the names given with `--entry`; any other `Host` is refused (421).
   */
  allowedHosts?: string[];
}

/** Read access to the stored state, used by the core layer and the live routes. */
export interface ProxyStore {
  getSettings(): Settings;
  listSubscriptions(): SubscriptionRecord[];
  listRules(): RuleRecord[];
  /** Everything the config compiler needs: settings, enabled subscriptions with nodes, rules. */
  coreInput(): CoreInput;
  /** Nodes of enabled subscriptions. */
  nodeCount(): number;
}

/** One entry of the core's `GET /proxies`. */
export interface CoreProxy {
  type: string;
  name: string;
  udp?: boolean;
  alive?: boolean;
  history: Array<{ time: string; delay: number }>;
  now?: string;
  all?: string[];
}

/** The slice of the mihomo controller client other modules use. */
export interface CoreClient {
  version(timeoutMs?: number): Promise<string>;
  proxies(timeoutMs?: number): Promise<Record<string, CoreProxy>>;
  /** Delay in ms of one node of one provider; throws on failure or deadline. */
  healthcheck(provider: string, coreName: string, url: string, timeoutMs: number): Promise<number>;
}

/** The core layer (`core/`): compiles, checks, applies and controls the mihomo core. */
export interface CoreControl {
  /** True when the core executable exists (re-checked on every read). */
  readonly installed: boolean;
  /** Last configuration error ("" when the last compile/check succeeded). */
  readonly configError: string;
  readonly client: CoreClient;
  /**
   * Compiles the configuration and checks it with the core's `-t` (when installed). When
   * the core runs, loads it and re-applies the selection; otherwise stages it for the next
   * start. Throws a DomainError (answered 400) with the reason on failure and keeps the previous config.
   */
  apply(input: CoreInput): Promise<void>;
  /** Points the proxy selector at the chosen node, the automatic group, or REJECT. */
  applySelection(input: CoreInput): Promise<void>;
  start(input: CoreInput): Promise<void>;
  stop(): Promise<void>;
  restart(input: CoreInput): Promise<void>;
  /** Whether the service believes the core should be running. */
  running(): boolean;
  close(): Promise<void>;
}

/**
 * What the service is, as the core layer's helpers and the routers see it: no database (the
 * repositories hold it), the stored state only through its read view.
 */
export interface ProxyContext {
  clock: Clock;
  /** Structured log (`ctx.log.warn(code, "...", { requestId, err })`) and the plain `ctx.log("...")`. */
  log: ServiceLog<ProxyProblemCode>;
  /** `<dataDir>/proxy` */
  dir: string;
  options: ProxyServiceOptions;
  /** Port the service itself listens on (0 until known). */
  ownPort(): number;
  /** ms since epoch when the service started (for uptimeSeconds). */
  startedAt: number;
  store: ProxyStore;
  core: CoreControl;
  /** Whether the session with this id is still valid (streams re-check it). */
  sessionAlive(sessionId: string): boolean;
  /** Every route of the service; routers are made from it (exact paths, guarded by access). */
  routes: RouteTable<ProxyAccess, typeof PROXY_API>;
  /** The executable that runs now (configured, installed, bundled or on PATH), when known. */
  coreBin?: () => string | undefined;
}

/** Options the core layer's factory (`core/index.ts` `createCoreManager`) takes. */
export interface CoreManagerOptions {
  /** Home dir of the core (config, providers, geodata): `<dataDir>/proxy/core`. */
  homeDir: string;
  /**
   * The executable. Read on every use, never kept: the service passes a getter, since an
   * install or a rollback changes which core runs while the service runs.
   */
  coreBin?: string;
  service: "process" | "systemd";
  unit: string;
  controllerPort: number;
  /** Folders of geodata shipped with the app, copied into the home dir at a start. */
  geodataDirs?: string[];
  clock: Clock;
  /** A sentence per event; problems name their level and code (`log("...", problem(...))`). */
  log: LineLog;
}
