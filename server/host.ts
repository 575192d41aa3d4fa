import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Express } from "express";
import type { Logger } from "pino";
import { APP_ROOT, deriveEntries, type GatehouseConfig } from "./config.js";
import { loadOrCreateCertificate } from "./tls.js";
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

type AnyServer = http.Server | https.Server;

function listen(server: AnyServer, port: number, host: string): Promise<number> {
  // Large uploads and downloads may take longer than Node's default 5-minute request timeout;
  // stalled uploads are dropped by the service's own idle timeout instead.
  server.requestTimeout = 0;
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: AnyServer): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // In-flight transfers are ended rather than waited for.
    server.closeAllConnections();
  });
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
  const servers: AnyServer[] = [];
  // Set inside the start functions below; `as` keeps TypeScript from narrowing them to null.
  let parcelService = null as ParcelService | null;
  let proxyService = null as ProxyService | null;
  const ui = staticDir();
  let parcelInfo = null as RunningGatehouse["parcel"];
  let proxyInfo = null as RunningGatehouse["proxy"];
  let httpsServer = null as https.Server | null;
  /** The parcel service's real ports: the proxy's listeners may not take them. */
  const parcelPorts: number[] = [];
  /** The LAN name's entries, kept after any entries the host puts in place. */
  let lanEntries: string[] = [];
  const announcements: Announcement[] = [];

  const startParcel = async (): Promise<void> => {
    let app: Express | null = null;
    const handler: http.RequestListener = (req, res) =>
      app ? app(req, res) : res.writeHead(503).end();
    const httpServer = http.createServer(handler);
    servers.push(httpServer);
    const httpPort = await listen(httpServer, config.parcelPort, config.host);
    parcelPorts.push(httpPort);
    let httpsPort: number | null = null;
    if (config.parcelHttpsPort !== null) {
      // Hosts first (ports don't matter for the certificate), then listen, then entries.
      const hosts = entryHosts(
        config.entries.length ? config.entries : deriveEntries(config.host, 1, null),
      );
      const tls = await loadOrCreateCertificate(config.dataDir, hosts, {
        cert: config.tlsCert,
        key: config.tlsKey,
      });
      httpsServer = https.createServer({ cert: tls.cert, key: tls.key }, handler);
      servers.push(httpsServer);
      httpsPort = await listen(httpsServer, config.parcelHttpsPort, config.host);
      parcelPorts.push(httpsPort);
    }
    const entries = config.entries.length
      ? config.entries
      : deriveEntries(config.host, httpPort, httpsPort);
    parcelService = await createParcelService({
      dataDir: config.dataDir,
      entries,
      adminUser: config.adminUser,
      adminPassword: config.adminPassword,
      resetAdminPassword: config.resetAdminPassword,
      staticDir: ui,
      logger: logger.child({ service: "parcel" }),
      onEvent: hooks.onParcelEvent,
    });
    app = parcelService.app;
    announcements.push({ name: "Gatehouse", port: httpPort, service: "parcel" });
    parcelInfo = {
      url: urlFor("http", config.host, httpPort, entries),
      httpsUrl: httpsPort === null ? null : urlFor("https", config.host, httpsPort, entries),
      entries,
      adminUser: parcelService.adminUser,
      generatedAdminPassword: parcelService.generatedAdminPassword,
    };
  };

  const startProxy = async (): Promise<void> => {
    let app: Express | null = null;
    const server = http.createServer((req, res) =>
      app ? app(req, res) : res.writeHead(503).end(),
    );
    servers.push(server);
    const port = await listen(server, config.proxyPort, config.host);
    // Loaded only when needed, so `--parcel-only` never loads the proxy code.
    const { createProxyService } = await import("./proxy/service.js");
    proxyService = await createProxyService({
      dataDir: config.dataDir,
      coreBin: config.coreBin,
      coreFallback: config.coreFallback,
      coreService: config.coreService,
      coreUnit: config.coreUnit,
      coreReleaseURL: config.coreReleaseURL,
      geodataURL: config.geodataURL,
      dhcpLeases: config.dhcpLeases,
      controllerPort: config.coreControllerPort,
      staticDir: ui,
      // Names the operator gave for this machine (IP literals of it are accepted anyway).
      // With mDNS on, also `<hostname>.local`: the name the console is announced on.
      allowedHosts: [
        config.host,
        ...config.entries.map((e) => new URL(e).hostname),
        ...(config.mdns && hostLabel() ? [`${hostLabel()}.local`] : []),
      ],
      logger: logger.child({ service: "proxy" }),
    });
    proxyService.setOwnPort(port);
    // Before the console answers anyone, so no request sees the old password.
    const generatedPassword = config.resetProxyPassword
      ? await proxyService.resetConsolePassword()
      : null;
    app = proxyService.app;
    announcements.push({ name: "Gatehouse proxy", port, service: "proxy" });
    await proxyService.start();
    proxyInfo = {
      url: urlFor("http", config.host, port, []),
      setupToken: proxyService.setupToken,
      generatedPassword,
    };
  };

  // The two services share nothing but the logger (each has its own directory under the data
  // dir), so they are built side by side: one's file and socket waits overlap the other's
  // work instead of adding up.
  const started = await Promise.allSettled([
    config.parcel ? startParcel() : null,
    config.proxy ? startProxy() : null,
  ]);
  const failed = started.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed) {
    await Promise.all(servers.map(closeServer));
    await parcelService?.close();
    await proxyService?.close();
    throw failed.reason;
  }
  proxyService?.setParcelPorts(parcelPorts);

  const parcel = parcelService;
  /** The given entries and the LAN name's, in place at once (HTTPS certificate included). */
  const applyEntries = async (given: string[]): Promise<string[]> => {
    if (!parcel || !parcelInfo) throw new Error("the parcel service is not running");
    const entries = [...given, ...lanEntries.filter((e) => !given.includes(e))];
    parcel.ctx.entries.replace(entries);
    parcelInfo.entries = [...entries];
    if (httpsServer) {
      const tls = await loadOrCreateCertificate(config.dataDir, entryHosts(entries), {
        cert: config.tlsCert,
        key: config.tlsKey,
      });
      httpsServer.setSecureContext({ cert: tls.cert, key: tls.key });
    }
    return parcelInfo.entries;
  };

  let stopped = false;
  let advertiser: Advertiser | null = null;
  let lanName: Promise<string | null> = Promise.resolve(null);
  if (config.mdns) {
    const label = hostLabel();
    advertiser = startAdvertiser(
      announcements.map((a) => ({ ...a, name: `${a.name} on ${label ?? "this computer"}` })),
      (level, message) => logger[level](message),
    );
    const info = parcelInfo;
    if (info && parcel) {
      const ports = { http: parcelPorts[0], https: parcelPorts[1] ?? null };
      lanName = findLanName()
        .then(async (name) => {
          if (!name || stopped) return null;
          lanEntries = lanNameEntries(name, ports.http, ports.https);
          await applyEntries(info.entries);
          logger.info(`parcel service reachable by its LAN name at ${lanEntries.join(", ")}`);
          return name;
        })
        .catch((err: unknown) => {
          logger.warn(`the LAN name could not be added: ${String(err)}`);
          return null;
        });
    }
  }

  return {
    parcel: parcelInfo,
    proxy: proxyInfo,
    core: proxyService?.ctx.core ?? null,
    lanName,
    setParcelEntries: applyEntries,
    async stop() {
      stopped = true;
      await advertiser?.stop();
      await Promise.all(servers.map(closeServer));
      await parcelService?.close();
      await proxyService?.close();
    },
  };
}
