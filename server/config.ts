import { accessSync, constants, existsSync, mkdirSync, statSync } from "node:fs";
import { homedir, networkInterfaces } from "node:os";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { DEFAULT_LOG_LEVEL, isLogLevel, LOG_LEVELS, type LogLevel } from "./log.js";

/** Everything `npm run serve` (and the desktop app) needs to start the services. */
export interface GatehouseConfig {
  dataDir: string;
  host: string;
  parcelPort: number;
  parcelHttpsPort: number | null;
  tlsCert: string | null;
  tlsKey: string | null;
  proxyPort: number;
  entries: string[];
  /** The core named with `--core-bin` (GATEHOUSE_CORE_BIN): it always runs when given. */
  coreBin: string | undefined;
  /** The bundled core, else one on PATH: what runs while Gatehouse has installed none. */
  coreFallback: { path: string; source: "bundled" | "path" } | undefined;
  coreService: "process" | "systemd";
  coreUnit: string;
  coreReleaseURL: string;
  /** Where `POST /system/geodata/update` downloads `<name>` and `<name>.sha256sum` from. */
  geodataURL: string;
  /** Port of the core's external controller on 127.0.0.1. */
  coreControllerPort: number;
  /** A DHCP leases file (dnsmasq's, or odhcpd's state file) read for device names. */
  dhcpLeases: string | undefined;
  parcel: boolean;
  proxy: boolean;
  adminUser: string;
  adminPassword: string | undefined;
  /** Give the parcel administrator a new generated password (printed once) at this start. */
  resetAdminPassword: boolean;
  /** Give the proxy console a new generated password (printed once) at this start. */
  resetProxyPassword: boolean;
  /** Least severe level written to the JSON log on stderr. */
  logLevel: LogLevel;
  /**
   * Announce the services with DNS-SD and add `http://<hostname>.local:<port>` to the parcel
   * entries when that name resolves to this machine (`--no-mdns`, GATEHOUSE_MDNS=0: neither).
   */
  mdns: boolean;
}

export class ConfigError extends Error {}

export const DEFAULT_RELEASE_URL = "https://api.github.com/repos/MetaCubeX/mihomo/releases/latest";
export const DEFAULT_CONTROLLER_PORT = 9090;
/** The geodata project's own release downloads (each file published with a `.sha256sum`). */
export const DEFAULT_GEODATA_URL =
  "https://github.com/MetaCubeX/meta-rules-dat/releases/download/latest";
export const APP_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The OS per-user data dir + `/gatehouse`. */
export function defaultDataDir(
  env: NodeJS.ProcessEnv = process.env,
  platform = process.platform,
): string {
  if (platform === "win32")
    return join(env.APPDATA ?? join(homedir(), "AppData", "Roaming"), "gatehouse");
  if (platform === "darwin") return join(homedir(), "Library", "Application Support", "gatehouse");
  return join(env.XDG_DATA_HOME || join(homedir(), ".local", "share"), "gatehouse");
}

function port(raw: string | undefined, name: string, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535)
    throw new ConfigError(`${name} must be a port number from 0 to 65535, not "${raw}"`);
  return Number(raw);
}

/** Finds an executable on PATH. */
function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * The core used when none is named with `--core-bin` and none is installed in
 * `<data-dir>/core` (the proxy service prefers those two): `resources/core/mihomo`, then
 * `mihomo` on PATH; undefined when neither exists.
 */
export function resolveCoreFallback(
  env: NodeJS.ProcessEnv,
): { path: string; source: "bundled" | "path" } | undefined {
  const exe = process.platform === "win32" ? "mihomo.exe" : "mihomo";
  // The installed desktop app ships its core outside the code (in its resources folder) and
  // names it here, so a core installed from the console can still take its place.
  const shipped = env.GATEHOUSE_BUNDLED_CORE;
  if (shipped && isAbsolute(shipped) && existsSync(shipped))
    return { path: shipped, source: "bundled" };
  const bundled = join(APP_ROOT, "resources", "core", exe);
  if (existsSync(bundled)) return { path: bundled, source: "bundled" };
  const found = onPath(exe, env);
  return found ? { path: found, source: "path" } : undefined;
}

/** Parcel entry addresses: loopback names, then each up, non-internal IPv4 address when bound to 0.0.0.0. */
export function deriveEntries(
  host: string,
  httpPort: number,
  httpsPort: number | null,
  interfaces: ReturnType<typeof networkInterfaces> = networkInterfaces(),
): string[] {
  const hosts: string[] = [];
  if (host === "0.0.0.0" || host === "127.0.0.1" || host === "localhost")
    hosts.push("127.0.0.1", "localhost");
  if (host === "0.0.0.0") {
    for (const name of Object.keys(interfaces).sort()) {
      for (const a of interfaces[name] ?? []) {
        if (a.family === "IPv4" && !a.internal && !hosts.includes(a.address)) hosts.push(a.address);
      }
    }
  } else if (!hosts.includes(host)) {
    hosts.push(host.includes(":") ? `[${host}]` : host);
  }
  const out = hosts.map((h) => `http://${h}:${httpPort}`);
  if (httpsPort !== null) out.push(...hosts.map((h) => `https://${h}:${httpsPort}`));
  return out;
}

export const USAGE = `Usage: npm run serve -- [options]
  --data-dir DIR            where everything is stored (GATEHOUSE_DATA_DIR; default: ${defaultDataDir()})
  --host ADDR               bind address of both services (default 0.0.0.0)
  --parcel-port N           parcel service HTTP port (default 8000; 0 = any free port)
  --parcel-https-port N     also serve the parcel service over HTTPS
  --tls-cert FILE --tls-key FILE   HTTPS certificate (default: a generated self-signed one)
  --proxy-port N            proxy management port (default 8080; 0 = any free port)
  --entry URL               parcel entry address (repeatable; default: derived)
  --core-bin FILE           mihomo executable (GATEHOUSE_CORE_BIN)
  --core-service process|systemd, --core-unit NAME
  --core-release-url URL    update check source (GATEHOUSE_CORE_RELEASE_URL)
  --geodata-url URL         where "Update geodata" downloads the core's rule data
                            (GATEHOUSE_GEODATA_URL; default: the MetaCubeX meta-rules-dat release)
  --dhcp-leases FILE        DHCP leases read for device names: dnsmasq's leases file or
                            odhcpd's state file (GATEHOUSE_DHCP_LEASES; default: none)
  --core-controller-port N  port of the core's controller on 127.0.0.1
                            (GATEHOUSE_CORE_CONTROLLER_PORT; default 9090)
  --parcel-only, --proxy-only
  --reset-admin-password    give the parcel administrator a new password, printed once
  --reset-proxy-password    give the proxy console a new password, printed once
  --log-level LEVEL         ${LOG_LEVELS.join(", ")} (GATEHOUSE_LOG_LEVEL; default ${DEFAULT_LOG_LEVEL});
                            JSON lines on stderr, one per request with its X-Request-Id
  --no-mdns                 no DNS-SD announcement ("Gatehouse on <hostname>") and no
                            <hostname>.local entry address (GATEHOUSE_MDNS=0)
Environment: GATEHOUSE_ADMIN_USER, GATEHOUSE_ADMIN_PASSWORD set the parcel administrator.`;

function coreBinFrom(given: string | undefined): string | undefined {
  return given ? resolve(given) : undefined;
}

/** Whether the environment leaves mDNS on (GATEHOUSE_MDNS=0, off, false or no turns it off). */
export function mdnsWanted(env: NodeJS.ProcessEnv): boolean {
  return !/^(0|off|false|no)$/i.test(env.GATEHOUSE_MDNS ?? "");
}

/** The command line's options (each also read from the environment where the help says so). */
const OPTIONS = {
  "data-dir": { type: "string" },
  host: { type: "string" },
  "parcel-port": { type: "string" },
  "parcel-https-port": { type: "string" },
  "tls-cert": { type: "string" },
  "tls-key": { type: "string" },
  "proxy-port": { type: "string" },
  entry: { type: "string", multiple: true },
  "core-bin": { type: "string" },
  "core-service": { type: "string" },
  "core-unit": { type: "string" },
  "core-release-url": { type: "string" },
  "core-controller-port": { type: "string" },
  "geodata-url": { type: "string" },
  "dhcp-leases": { type: "string" },
  "parcel-only": { type: "boolean" },
  "proxy-only": { type: "boolean" },
  "reset-admin-password": { type: "boolean" },
  "reset-proxy-password": { type: "boolean" },
  "log-level": { type: "string" },
  "no-mdns": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} satisfies ParseArgsConfig["options"];

function readArgs(argv: string[]) {
  try {
    return parseArgs({ args: argv, strict: true, allowPositionals: false, options: OPTIONS })
      .values;
  } catch (err) {
    throw new ConfigError((err as Error).message.split("\n")[0]);
  }
}

type Values = ReturnType<typeof readArgs>;

/** Parses the command line and environment; throws ConfigError for anything unusable. */
export function parseConfig(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): GatehouseConfig | "help" {
  const values = readArgs(argv);
  if (values.help) return "help";
  if (values["parcel-only"] && values["proxy-only"])
    throw new ConfigError("--parcel-only and --proxy-only exclude each other");
  const { coreService, coreUnit } = coreServiceOf(values);
  const listen = listenOf(values);
  const entries = entriesOf(values);
  const coreReleaseURL = releaseUrlOf(values, env);
  const geodataURL = geodataUrlOf(values, env);
  const coreControllerPort = controllerPortOf(values, env, listen);
  const leases = values["dhcp-leases"] ?? (env.GATEHOUSE_DHCP_LEASES || undefined);
  if (leases !== undefined && !leases.trim())
    throw new ConfigError("--dhcp-leases must name a file");
  const logLevel = values["log-level"] ?? (env.GATEHOUSE_LOG_LEVEL || DEFAULT_LOG_LEVEL);
  if (!isLogLevel(logLevel))
    throw new ConfigError(`--log-level must be one of ${LOG_LEVELS.join(", ")}, not "${logLevel}"`);
  return {
    dataDir: resolve(values["data-dir"] ?? env.GATEHOUSE_DATA_DIR ?? defaultDataDir(env)),
    ...listen,
    tlsCert: values["tls-cert"] ?? null,
    tlsKey: values["tls-key"] ?? null,
    entries,
    coreBin: coreBinFrom(values["core-bin"] ?? env.GATEHOUSE_CORE_BIN),
    coreFallback: resolveCoreFallback(env),
    coreService,
    coreUnit,
    coreReleaseURL,
    geodataURL,
    coreControllerPort,
    // A file that does not exist yet (no lease handed out) is fine: it is read when it appears.
    dhcpLeases: leases === undefined ? undefined : resolve(leases),
    parcel: !values["proxy-only"],
    resetAdminPassword: Boolean(values["reset-admin-password"]),
    resetProxyPassword: Boolean(values["reset-proxy-password"]),
    proxy: !values["parcel-only"],
    adminUser: env.GATEHOUSE_ADMIN_USER || "admin",
    adminPassword: env.GATEHOUSE_ADMIN_PASSWORD || undefined,
    logLevel,
    mdns: !values["no-mdns"] && mdnsWanted(env),
  };
}

/** How the core is run: as a child process or as a systemd unit. */
function coreServiceOf(values: Values): Pick<GatehouseConfig, "coreService" | "coreUnit"> {
  const coreService = values["core-service"] ?? "process";
  if (coreService !== "process" && coreService !== "systemd")
    throw new ConfigError(`--core-service must be process or systemd, not "${coreService}"`);
  const coreUnit = values["core-unit"] ?? "gatehouse-mihomo.service";
  if (!/^[\w@.-]+\.service$/.test(coreUnit))
    throw new ConfigError(`--core-unit must be a systemd unit name ending in .service`);
  return { coreService, coreUnit };
}

/** Where the services listen. */
function listenOf(
  values: Values,
): Pick<GatehouseConfig, "host" | "parcelPort" | "parcelHttpsPort" | "proxyPort"> {
  if (Boolean(values["tls-cert"]) !== Boolean(values["tls-key"]))
    throw new ConfigError("--tls-cert and --tls-key go together");
  const host = values.host ?? "0.0.0.0";
  if (!/^[\w.:-]+$/.test(host)) throw new ConfigError(`--host must be an address, not "${host}"`);
  const parcelPort = port(values["parcel-port"], "--parcel-port", 8000);
  const httpsRaw = values["parcel-https-port"];
  const parcelHttpsPort = httpsRaw === undefined ? null : port(httpsRaw, "--parcel-https-port", 0);
  const proxyPort = port(values["proxy-port"], "--proxy-port", 8080);
  return { host, parcelPort, parcelHttpsPort, proxyPort };
}

/** The extra origins the parcel service is reached by, each an http(s) origin. */
function entriesOf(values: Values): string[] {
  const entries = values.entry ?? [];
  for (const e of entries) {
    let url: URL;
    try {
      url = new URL(e);
    } catch {
      throw new ConfigError(`--entry must be a URL such as http://192.168.1.20:8000, not "${e}"`);
    }
    if (
      (url.protocol !== "http:" && url.protocol !== "https:") ||
      url.pathname !== "/" ||
      url.search ||
      url.hash
    ) {
      throw new ConfigError(`--entry must be an http(s) origin without a path, not "${e}"`);
    }
  }
  return entries;
}

function releaseUrlOf(values: Values, env: NodeJS.ProcessEnv): string {
  const releaseURL =
    values["core-release-url"] ?? env.GATEHOUSE_CORE_RELEASE_URL ?? DEFAULT_RELEASE_URL;
  try {
    new URL(releaseURL);
  } catch {
    throw new ConfigError(`--core-release-url must be a URL, not "${releaseURL}"`);
  }
  return releaseURL;
}

function geodataUrlOf(values: Values, env: NodeJS.ProcessEnv): string {
  const geodataURL = (values["geodata-url"] ?? env.GATEHOUSE_GEODATA_URL ?? DEFAULT_GEODATA_URL)
    .trim()
    .replace(/\/+$/, "");
  let geodataProtocol = "";
  try {
    geodataProtocol = new URL(geodataURL).protocol;
  } catch {
    // said below
  }
  if (geodataProtocol !== "http:" && geodataProtocol !== "https:")
    throw new ConfigError(`--geodata-url must be an http(s) URL, not "${geodataURL}"`);
  return geodataURL;
}

/** The core's controller port, which must not be one the services listen on. */
function controllerPortOf(
  values: Values,
  env: NodeJS.ProcessEnv,
  listen: Pick<GatehouseConfig, "parcelPort" | "proxyPort">,
): number {
  // The core must be told a fixed port, so 0 ("any free port") is not allowed here.
  const controllerRaw =
    values["core-controller-port"] ?? (env.GATEHOUSE_CORE_CONTROLLER_PORT || undefined);
  const coreControllerPort =
    controllerRaw === undefined ? DEFAULT_CONTROLLER_PORT : Number(controllerRaw);
  if (
    controllerRaw !== undefined &&
    (!/^\d{1,5}$/.test(controllerRaw) || coreControllerPort < 1 || coreControllerPort > 65535)
  )
    throw new ConfigError(
      `--core-controller-port must be a port number from 1 to 65535, not "${controllerRaw}"`,
    );
  for (const [other, used] of [
    ["--proxy-port", !values["parcel-only"] && listen.proxyPort],
    ["--parcel-port", !values["proxy-only"] && listen.parcelPort],
  ] as const) {
    if (used === coreControllerPort)
      throw new ConfigError(`--core-controller-port must differ from ${other} (${used})`);
  }
  return coreControllerPort;
}

/** Creates the data dir and checks it is writable. */
/**
 * `mkdir -p`, one level at a time. Node's recursive mkdir never returns where a file system
 * answers ENOENT for a directory whose parent exists (under /proc it spins forever).
 */
function makeDirs(dir: string, mode: number): void {
  const missing: string[] = [];
  for (let cur = resolve(dir); !existsSync(cur); cur = dirname(cur)) {
    missing.unshift(cur);
    if (dirname(cur) === cur) break;
  }
  for (const d of missing) mkdirSync(d, { mode });
}

export function prepareDataDir(dir: string): void {
  try {
    // Private when we create it; an existing dir keeps the mode its owner chose.
    makeDirs(dir, 0o700);
    accessSync(dir, constants.W_OK | constants.R_OK);
  } catch (err) {
    throw new ConfigError(
      `the data dir ${dir} is not usable: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}
