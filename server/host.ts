import http from "node:http";
import https from "node:https";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "pino";
import { APP_ROOT, deriveEntries, type GatehouseConfig } from "./config.js";
import { loadOrCreateCertificate } from "./tls.js";
import { closeServer, lateApp, listen, type AnyServer } from "./listeners.js";
import {
  findLanName,
  hostLabel,
  lanNameEntries,
  startAdvertiser,
  type Advertiser,
  type Announcement,
} from "./lan-name.js";
import { createParcelService, type ParcelService } from "./parcel/service.js";
import type { ParcelEventListener } from "./parcel/events.js";
import type { CoreControl } from "./proxy/context.js";
import type { ProxyService } from "./proxy/service.js";

export interface RunningGatehouse {
  parcel: {
    url: string;
    httpsUrl: string | null;
    entries: string[];
    adminUser: string;
    generatedAdminPassword: string | null;
  } | null;
  proxy: {
    url: string;
    setupToken: string | null;
    /** The console's new password after `--reset-proxy-password` (shown once), else null. */
    generatedPassword: string | null;
  } | null;
  /**
   * Puts other parcel entry addresses in place while running: share addresses, `Host` and
   * origin checks follow at once, the generated HTTPS certificate once it covers the new
   * hosts. Throws (changing nothing) for an address that is no http(s) origin.
   */
  setParcelEntries(entries: string[]): Promise<string[]>;
  /** The proxy core, for a host that shows whether it runs (null without the proxy service). */
  core: CoreControl | null;
  /**
   * `<hostname>.local` once it is known to resolve to this machine (then among the parcel
   * entries, labelled as the LAN name), null when it does not or mDNS is off.
   */
  lanName: Promise<string | null>;
  stop(): Promise<void>;
}

/** What a host process (the desktop app) wants to hear from the services. */
export interface GatehouseHooks {
  onParcelEvent?: ParcelEventListener;
}

/** Host names of entry origins, as a certificate names them. */
function entryHosts(entries: string[]): string[] {
  return entries.map((e) => new URL(e).hostname.replace(/^\[|\]$/g, ""));
}

function urlFor(protocol: "http" | "https", host: string, port: number, entries: string[]): string {
  const match = entries.find(
    (e) => e.startsWith(`${protocol}://`) && new URL(e).port === String(port),
  );
  if (match) return match;
  const shown = host === "0.0.0.0" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  return `${protocol}://${shown}:${port}`;
}

/**
 * Where the built web UI (`npm run build:renderer`) is, seen from the services' code root:
 * beside it (a checkout run with tsx, and the installed app, which ships it at
 * `dist/main/renderer/dist`), or two levels up when the compiled services run from a
 * checkout's `dist/main` (`npm start`).
 */
export function staticDirFrom(
  root: string,
  exists: (path: string) => boolean = existsSync,
): string | undefined {
  return [join(root, "renderer", "dist"), join(root, "..", "..", "renderer", "dist")].find(exists);
}

/** The built web UI, when present. */
export function staticDir(): string | undefined {
  return staticDirFrom(APP_ROOT);
}

/** What each part of a start works with, and what it has put up so far. */
interface StartContext {
  config: GatehouseConfig;
  /** The process's JSON logger; each service logs through a child that names it. */
  logger: Logger;
  hooks: GatehouseHooks;
  /** The built web UI, when present. */
  ui: string | undefined;
  /** Every listening server: all are closed again on a failed start and on stop. */
  servers: AnyServer[];
  parcel: ParcelService | null;
  proxy: ProxyService | null;
  /** The services as mDNS announces them, in the order they came up. */
  announcements: Announcement[];
}

/** The running parcel service and what the host keeps of its start. */
interface ParcelStart {
  service: ParcelService;
  info: NonNullable<RunningGatehouse["parcel"]>;
  httpsServer: https.Server | null;
  /** Its real ports, HTTP then HTTPS: the proxy's listeners may not take them. */
  ports: number[];
}

/** The parcel service's certificate, naming the hosts of `entries` (or the configured one). */
function parcelCertificate(
  config: GatehouseConfig,
  entries: string[],
): ReturnType<typeof loadOrCreateCertificate> {
  return loadOrCreateCertificate(config.dataDir, entryHosts(entries), {
    cert: config.tlsCert,
    key: config.tlsKey,
  });
}

/** The parcel service's HTTP listener and, when configured, its HTTPS one. */
async function listenParcel(
  start: StartContext,
  handler: http.RequestListener,
): Promise<{ httpPort: number; httpsPort: number | null; httpsServer: https.Server | null }> {
  const { config } = start;
  const httpServer = http.createServer(handler);
  start.servers.push(httpServer);
  const httpPort = await listen(httpServer, config.parcelPort, config.host);
  if (config.parcelHttpsPort === null) return { httpPort, httpsPort: null, httpsServer: null };
  // Hosts first (ports don't matter for the certificate), then listen, then entries.
  const tls = await parcelCertificate(
    config,
    config.entries.length ? config.entries : deriveEntries(config.host, 1, null),
  );
  const httpsServer = https.createServer({ cert: tls.cert, key: tls.key }, handler);
  start.servers.push(httpsServer);
  const httpsPort = await listen(httpsServer, config.parcelHttpsPort, config.host);
  return { httpPort, httpsPort, httpsServer };
}

async function startParcel(start: StartContext): Promise<ParcelStart> {
  const { config } = start;
  const late = lateApp();
  const { httpPort, httpsPort, httpsServer } = await listenParcel(start, late.handler);
  const entries = config.entries.length
    ? config.entries
    : deriveEntries(config.host, httpPort, httpsPort);
  const service = await createParcelService({
    dataDir: config.dataDir,
    entries,
    adminUser: config.adminUser,
    adminPassword: config.adminPassword,
    resetAdminPassword: config.resetAdminPassword,
    staticDir: start.ui,
    logger: start.logger.child({ service: "parcel" }),
    onEvent: start.hooks.onParcelEvent,
  });
  start.parcel = service;
  late.serve(service.app);
  start.announcements.push({ name: "Gatehouse", port: httpPort, service: "parcel" });
  return {
    service,
    httpsServer,
    ports: httpsPort === null ? [httpPort] : [httpPort, httpsPort],
    info: {
      url: urlFor("http", config.host, httpPort, entries),
      httpsUrl: httpsPort === null ? null : urlFor("https", config.host, httpsPort, entries),
      entries,
      adminUser: service.adminUser,
      generatedAdminPassword: service.generatedAdminPassword,
    },
  };
}

/**
 * Names the operator gave for this machine (IP literals of it are accepted anyway). With mDNS
 * on, also `<hostname>.local`: the name the console is announced on.
 */
function proxyAllowedHosts(config: GatehouseConfig): string[] {
  return [
    config.host,
    ...config.entries.map((e) => new URL(e).hostname),
    ...(config.mdns && hostLabel() ? [`${hostLabel()}.local`] : []),
  ];
}

async function startProxy(start: StartContext): Promise<NonNullable<RunningGatehouse["proxy"]>> {
  const { config } = start;
  const late = lateApp();
  const server = http.createServer(late.handler);
  start.servers.push(server);
  const port = await listen(server, config.proxyPort, config.host);
  // Loaded only when needed, so `--parcel-only` never loads the proxy code.
  const { createProxyService } = await import("./proxy/service.js");
  const service = await createProxyService({
    dataDir: config.dataDir,
    coreBin: config.coreBin,
    coreFallback: config.coreFallback,
    coreService: config.coreService,
    coreUnit: config.coreUnit,
    coreReleaseURL: config.coreReleaseURL,
    geodataURL: config.geodataURL,
    dhcpLeases: config.dhcpLeases,
    controllerPort: config.coreControllerPort,
    staticDir: start.ui,
    allowedHosts: proxyAllowedHosts(config),
    logger: start.logger.child({ service: "proxy" }),
  });
  start.proxy = service;
  service.setOwnPort(port);
  // Before the console answers anyone, so no request sees the old password.
  const generatedPassword = config.resetProxyPassword ? await service.resetConsolePassword() : null;
  late.serve(service.app);
  start.announcements.push({ name: "Gatehouse proxy", port, service: "proxy" });
  await service.start();
  return {
    url: urlFor("http", config.host, port, []),
    setupToken: service.setupToken,
    generatedPassword,
  };
}

/** Closes whatever a start put up: the listeners (ending transfers), then the services. */
async function closeStarted(start: StartContext): Promise<void> {
  await Promise.all(start.servers.map(closeServer));
  await start.parcel?.close();
  await start.proxy?.close();
}

/**
 * The configured services, started side by side: they share nothing but the logger (each
 * has its own directory under the data dir), so one's file and socket waits overlap the
 * other's work instead of adding up. One failing closes everything and throws its reason.
 */
async function startServices(
  start: StartContext,
): Promise<[ParcelStart | null, RunningGatehouse["proxy"]]> {
  const [parcel, proxy] = await Promise.allSettled([
    start.config.parcel ? startParcel(start) : null,
    start.config.proxy ? startProxy(start) : null,
  ]);
  if (parcel.status === "fulfilled" && proxy.status === "fulfilled")
    return [parcel.value, proxy.value];
  await closeStarted(start);
  throw [parcel, proxy].find((s): s is PromiseRejectedResult => s.status === "rejected")?.reason;
}

/** Puts `entries` in place on the parcel service at once (HTTPS certificate included). */
async function replaceParcelEntries(
  config: GatehouseConfig,
  parcel: ParcelStart | null,
  entries: string[],
): Promise<string[]> {
  if (!parcel) throw new Error("the parcel service is not running");
  parcel.service.ctx.entries.replace(entries);
  parcel.info.entries = [...entries];
  if (parcel.httpsServer) {
    const tls = await parcelCertificate(config, entries);
    parcel.httpsServer.setSecureContext({ cert: tls.cert, key: tls.key });
  }
  return parcel.info.entries;
}

/** Announces the started services with DNS-SD, named after this computer. */
function advertise(announcements: Announcement[], logger: Logger): Advertiser | null {
  const label = hostLabel();
  return startAdvertiser(
    announcements.map((a) => ({ ...a, name: `${a.name} on ${label ?? "this computer"}` })),
    (level, message) => logger[level](message),
  );
}

/**
 * `<hostname>.local` once it resolves to this machine, its entries handed to `addEntries`;
 * null when it does not, the services stopped meanwhile, or the entries could not be added.
 */
function addLanName(
  parcel: ParcelStart,
  logger: Logger,
  addEntries: (lanEntries: string[]) => Promise<void>,
  stopped: () => boolean,
): Promise<string | null> {
  const ports = { http: parcel.ports[0], https: parcel.ports[1] ?? null };
  return findLanName()
    .then(async (name) => {
      if (!name || stopped()) return null;
      const lanEntries = lanNameEntries(name, ports.http, ports.https);
      await addEntries(lanEntries);
      logger.info(`parcel service reachable by its LAN name at ${lanEntries.join(", ")}`);
      return name;
    })
    .catch((err: unknown) => {
      logger.warn(`the LAN name could not be added: ${String(err)}`);
      return null;
    });
}

/**
 * Starts the configured services on real sockets. Ports of 0 are resolved before the entry
 * addresses are derived, so `access_urls` always carry the real ports.
 */
export async function startGatehouse(
  config: GatehouseConfig,
  /** The process's JSON logger; each service logs through a child that names it. */
  logger: Logger,
  hooks: GatehouseHooks = {},
): Promise<RunningGatehouse> {
  const start: StartContext = {
    config,
    logger,
    hooks,
    ui: staticDir(),
    servers: [],
    parcel: null,
    proxy: null,
    announcements: [],
  };
  const [parcel, proxy] = await startServices(start);
  start.proxy?.setParcelPorts(parcel?.ports ?? []);

  /** The LAN name's entries, kept after any entries the host puts in place. */
  let lanEntries: string[] = [];
  const applyEntries = (given: string[]): Promise<string[]> =>
    replaceParcelEntries(config, parcel, [
      ...given,
      ...lanEntries.filter((e) => !given.includes(e)),
    ]);

  let stopped = false;
  const advertiser = config.mdns ? advertise(start.announcements, logger) : null;
  const lanName =
    config.mdns && parcel
      ? addLanName(
          parcel,
          logger,
          async (found) => {
            lanEntries = found;
            await applyEntries(parcel.info.entries);
          },
          () => stopped,
        )
      : Promise.resolve(null);

  return {
    parcel: parcel?.info ?? null,
    proxy,
    core: start.proxy?.ctx.core ?? null,
    lanName,
    setParcelEntries: applyEntries,
    async stop() {
      stopped = true;
      await advertiser?.stop();
      await closeStarted(start);
    },
  };
}
