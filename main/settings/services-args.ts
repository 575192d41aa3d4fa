import { existsSync } from "node:fs";
import { join } from "node:path";
import type { DetectedInterface } from "../entries/detect.js";
import { entryState } from "../entries/entries.js";
import type { DesktopSettings } from "./schema.js";

/**
 * The command line of the services process (`server/desktop-entry.ts`, the same options as
 * `npm run serve`) from the desktop settings. A few environment variables override settings
 * so tests and developers can run the app on free ports without touching the settings file.
 */

export interface ServicesContext {
  dataDir: string;
  /** The interfaces detected now; the chosen ones become `--entry` addresses. */
  detected: DetectedInterface[];
}

/** Environment variables that override a setting (empty = not set). */
export const SETTINGS_ENV = {
  parcelPort: "GATEHOUSE_PARCEL_PORT",
  parcelHttpsPort: "GATEHOUSE_PARCEL_HTTPS_PORT",
  proxyPort: "GATEHOUSE_PROXY_PORT",
  host: "GATEHOUSE_HOST",
  coreBinary: "GATEHOUSE_CORE_BIN",
} as const;

export function servicesArgs(
  settings: DesktopSettings,
  env: NodeJS.ProcessEnv,
  ctx: ServicesContext,
): string[] {
  const from = (name: string): string | undefined => env[name] || undefined;
  const host = from(SETTINGS_ENV.host) ?? settings.host;
  const parcelPort = from(SETTINGS_ENV.parcelPort) ?? String(settings.parcelPort);
  const httpsOverride = from(SETTINGS_ENV.parcelHttpsPort);
  const httpsPort =
    httpsOverride ?? (settings.httpsEnabled ? String(settings.parcelHttpsPort) : null);
  const proxyPort = from(SETTINGS_ENV.proxyPort) ?? String(settings.proxyPort);
  const args = ["--data-dir", ctx.dataDir, "--host", host, "--parcel-port", parcelPort];
  if (httpsPort !== null) args.push("--parcel-https-port", httpsPort);
  args.push("--proxy-port", proxyPort);

  // With "any free port" (0, tests) the real port is known only after listening, so the
  // services derive their entries themselves; otherwise the chosen addresses are named. A
  // malformed override is passed on as it is, for the services to refuse by name.
  const fixed = (port: string): boolean => /^[1-9]\d{0,4}$/.test(port);
  const fixedPorts = fixed(parcelPort) && (httpsPort === null || fixed(httpsPort));
  if (fixedPorts) {
    const state = entryState(
      {
        chosen: settings.entries,
        ports: { parcel: Number(parcelPort), https: Number(httpsPort ?? settings.parcelHttpsPort) },
        https: httpsPort !== null,
        host,
      },
      ctx.detected,
    );
    for (const url of state.urls) args.push("--entry", url);
  }

  // The services announce nothing over mDNS and offer no `<hostname>.local` entry.
  if (!settings.lanName) args.push("--no-mdns");

  // The bundled core is not named here: `--core-bin` would always win over a core installed
  // from the console. It reaches the services as GATEHOUSE_BUNDLED_CORE (servicesEnv).
  const core = from(SETTINGS_ENV.coreBinary) ?? settings.coreBinary;
  if (core) args.push("--core-bin", core);
  args.push("--core-service", settings.coreServiceMode);
  if (settings.coreServiceMode === "systemd") args.push("--core-unit", settings.coreUnit);
  return args;
}

/** Environment of the services process: where the app's own core is, when it ships one. */
export function servicesEnv(bundledCore: string | null | undefined): NodeJS.ProcessEnv {
  return bundledCore ? { GATEHOUSE_BUNDLED_CORE: bundledCore } : {};
}

/**
 * The mihomo executable shipped with the app, if present: `<resources>/core/` in an installed
 * app (see electron-builder.yml), `resources/core/<os>-<arch>/` in a checkout where
 * `scripts/fetch-core.ts` put it. Null lets the services look on PATH.
 */
export function bundledCorePath(options: {
  packaged: boolean;
  /** `process.resourcesPath` in an installed app; the checkout's root otherwise. */
  base: string;
  platform?: NodeJS.Platform;
  arch?: string;
  exists?: (path: string) => boolean;
}): string | null {
  const platform = options.platform ?? process.platform;
  const exists = options.exists ?? existsSync;
  const exe = platform === "win32" ? "mihomo.exe" : "mihomo";
  const os = platform === "win32" ? "win" : platform === "darwin" ? "mac" : platform;
  const path = options.packaged
    ? join(options.base, "core", exe)
    : join(options.base, "resources", "core", `${os}-${options.arch ?? process.arch}`, exe);
  return exists(path) ? path : null;
}
