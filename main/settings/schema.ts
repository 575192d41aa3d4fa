import { isIP, isIPv4 } from "node:net";
import { isAbsolute } from "node:path";
import { z } from "zod";

/**
 * Desktop settings kept with electron-store. The field rules live here once, as zod schemas:
 * the JSON schema conf/electron-store checks the file with is generated from them, and the
 * settings screen's patches are checked with them. Nothing here imports `electron`; tests open
 * the settings through electron-store itself with a stand-in `electron` module.
 */

const port = z.number().int().min(1).max(65535);

/** At most this many chosen interfaces or addresses (each gives one or two entries). */
export const MAX_CHOSEN_ENTRIES = 16;

/**
 * One chosen LAN entry: an interface by the OS's name for it (`eth0`, `Wi-Fi 2`), whose
 * IPv4 addresses follow DHCP, or one IPv4 address. IPv6 literals are not entries.
 */
const chosenEntry = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[^\p{Cc}]+$/u)
  .refine((v) => isIPv4(v) || isIP(v) === 0);

export const SETTINGS_FIELDS = {
  language: z.enum(["system", "en", "zh-CN"]),
  theme: z.enum(["system", "light", "dark"]),
  /** HTTP port of the parcel desk. */
  parcelPort: port,
  /** Serve the parcel desk over HTTPS too (a self-signed certificate unless one is given). */
  httpsEnabled: z.boolean(),
  /** Its HTTPS port; kept while HTTPS is off so turning it back on restores it. */
  parcelHttpsPort: port,
  proxyPort: port,
  /** Address both services listen on: an IP literal (0.0.0.0 = every interface). */
  host: z
    .string()
    .max(45)
    .refine((v) => isIP(v) !== 0),
  /** Which interfaces become LAN entries: every detected one, or those chosen. */
  entries: z.union([
    z.literal("all"),
    z
      .array(chosenEntry)
      .max(MAX_CHOSEN_ENTRIES)
      .refine((list) => new Set(list).size === list.length),
  ]),
  /**
   * The LAN name: the services announce themselves over mDNS/DNS-SD and offer
   * `http://<hostname>.local:<port>` among the entries (off: `--no-mdns`).
   */
  lanName: z.boolean(),
  startAtLogin: z.boolean(),
  closeToTray: z.boolean(),
  startMinimized: z.boolean(),
  /** The mihomo executable; null = the bundled one, then `mihomo` on PATH. */
  coreBinary: z
    .string()
    .min(1)
    .max(4096)
    .refine((v) => isAbsolute(v))
    .nullable(),
  /** How the core runs: a child process of the services, or a systemd unit they control. */
  coreServiceMode: z.enum(["process", "systemd"]),
  coreUnit: z
    .string()
    .max(256)
    .regex(/^[\w@.-]+\.service$/),
  /** Where files received through the inbox are saved; null = Downloads/Gatehouse. */
  inboxFolder: z
    .string()
    .min(1)
    .max(4096)
    .refine((v) => isAbsolute(v))
    .nullable(),
  window: z.object({
    width: z.number().int().min(480).max(10000),
    height: z.number().int().min(400).max(10000),
    x: z.number().int().optional(),
    y: z.number().int().optional(),
    maximized: z.boolean(),
  }),
};

export type SettingKey = keyof typeof SETTINGS_FIELDS;
export type DesktopSettings = { [K in SettingKey]: z.infer<(typeof SETTINGS_FIELDS)[K]> };
export const SETTING_KEYS = Object.keys(SETTINGS_FIELDS) as SettingKey[];

export const DESKTOP_DEFAULTS: DesktopSettings = {
  language: "system",
  theme: "system",
  parcelPort: 8000,
  httpsEnabled: false,
  parcelHttpsPort: 8443,
  proxyPort: 8080,
  host: "0.0.0.0",
  entries: "all",
  lanName: true,
  startAtLogin: false,
  closeToTray: true,
  startMinimized: false,
  coreBinary: null,
  coreServiceMode: "process",
  coreUnit: "gatehouse-mihomo.service",
  inboxFolder: null,
  window: { width: 1200, height: 820, maximized: false },
};

/** Checks a whole settings object, field by field (cross-field rules are in validate.ts). */
export const settingsSchema = z.object(SETTINGS_FIELDS);

function jsonSchemaOf(key: SettingKey): Record<string, unknown> {
  // Refinements (IP literal, absolute path) have no JSON form; zod is the real gate and
  // the repair step checks the file with it before conf opens it.
  const { $schema: _drop, ...schema } = z.toJSONSchema(SETTINGS_FIELDS[key], {
    target: "draft-7",
    unrepresentable: "any",
  }) as Record<string, unknown>;
  return { ...schema, default: DESKTOP_DEFAULTS[key] };
}

/** JSON schema (ajv, used by conf/electron-store) of the settings file. */
export const DESKTOP_SCHEMA = Object.fromEntries(
  SETTING_KEYS.map((key) => [key, jsonSchemaOf(key)]),
) as Record<SettingKey, Record<string, unknown>>;

/** What conf and electron-store hand a migration. */
export interface MigrationStore {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
  delete(key: string): void;
  has(key: string): boolean;
}

/**
 * Forward-only migrations of key names, keyed by the settings format version that introduced
 * them. conf checks the file against the schema before these run, so a value the current
 * rules refuse is upgraded (or reset) by `repairSettingsFile` first.
 */
export const DESKTOP_MIGRATIONS: Record<string, (store: MigrationStore) => void> = {
  "0.1.0": (store) => {
    // Early builds stored `lang`; it became `language`.
    if (store.has("lang")) {
      const lang = store.get("lang");
      store.set(
        "language",
        lang === "zh" || lang === "zh-CN" ? "zh-CN" : lang === "en" ? "en" : "system",
      );
      store.delete("lang");
    }
  },
};

/**
 * Version of the settings format (not of the app): bumped with each new migration, so a
 * release that changes nothing in the file migrates nothing.
 */
export const SETTINGS_FORMAT_VERSION = "0.1.0";

/**
 * The store's name, hence its file `<userData>/desktop-settings.json`. electron-store takes the
 * file's name from `name` (default `config`) and overwrites conf's `configName` with it, so
 * `name` is what decides; `configName` says the same for conf itself.
 */
export const SETTINGS_STORE_NAME = "desktop-settings";
export const SETTINGS_FILE_NAME = `${SETTINGS_STORE_NAME}.json`;

/**
 * Options for electron-store (and conf). `clearInvalidConfig` stays off: with it on, conf 15
 * answers `{}` for the whole file when one value breaks the schema, which would silently take
 * every setting back to its default. The settings module repairs the file key by key instead.
 */
export const DESKTOP_STORE_OPTIONS = {
  name: SETTINGS_STORE_NAME,
  configName: SETTINGS_STORE_NAME,
  projectName: "gatehouse",
  projectVersion: SETTINGS_FORMAT_VERSION,
  schema: DESKTOP_SCHEMA,
  defaults: DESKTOP_DEFAULTS,
  migrations: DESKTOP_MIGRATIONS,
  clearInvalidConfig: false,
} as const;

/** A settings object from whatever the store holds: known keys, defaults for the rest. */
export function settingsFrom(raw: Record<string, unknown>): DesktopSettings {
  const out: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    const parsed = SETTINGS_FIELDS[key].safeParse(raw[key]);
    out[key] = parsed.success ? parsed.data : DESKTOP_DEFAULTS[key];
  }
  return out as DesktopSettings;
}
