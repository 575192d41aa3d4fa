import { z } from "zod";
import { DEFAULT_CONTROLLER_PORT } from "../../server/config.js";
import { translator, type DesktopKey, type DesktopLanguage } from "../i18n.js";
import {
  SETTINGS_FIELDS,
  type DesktopSettings,
  type SettingKey,
  MAX_CHOSEN_ENTRIES,
} from "./schema.js";

/**
 * Checks a change the settings screen asks for, and says which changes need the services
 * restarted. Errors name the field and carry a stable code the window can translate; the
 * message is already in the operator's language.
 */

/** The settings a page may change (window bounds are the main process's own business). */
export const PATCHABLE_KEYS = [
  "language",
  "theme",
  "parcelPort",
  "httpsEnabled",
  "parcelHttpsPort",
  "proxyPort",
  "host",
  "entries",
  "lanName",
  "startAtLogin",
  "closeToTray",
  "startMinimized",
  "coreBinary",
  "coreServiceMode",
  "coreUnit",
  "inboxFolder",
] as const satisfies readonly SettingKey[];
export type PatchableKey = (typeof PATCHABLE_KEYS)[number];
export type SettingsPatch = Partial<Pick<DesktopSettings, PatchableKey>>;

export type SettingsErrorCode =
  | "port_range"
  | "port_clash"
  | "port_core"
  | "host_ip"
  | "entries"
  | "path_absolute"
  | "folder_absolute"
  | "unit_name"
  | "choice"
  | "boolean"
  | "unknown"
  | "not_object";

export interface SettingsError {
  /** The setting's key (`""` when the patch as a whole is wrong). */
  field: string;
  code: SettingsErrorCode;
  message: string;
}

export type PatchResult =
  | { ok: true; settings: DesktopSettings; changed: PatchableKey[] }
  | { ok: false; errors: SettingsError[] };

type PortKey = "parcelPort" | "parcelHttpsPort" | "proxyPort";

const CODE_BY_FIELD: Record<PatchableKey, SettingsErrorCode> = {
  language: "choice",
  theme: "choice",
  parcelPort: "port_range",
  httpsEnabled: "boolean",
  parcelHttpsPort: "port_range",
  proxyPort: "port_range",
  host: "host_ip",
  entries: "entries",
  lanName: "boolean",
  startAtLogin: "boolean",
  closeToTray: "boolean",
  startMinimized: "boolean",
  coreBinary: "path_absolute",
  coreServiceMode: "choice",
  coreUnit: "unit_name",
  inboxFolder: "folder_absolute",
};

function isPatchable(key: string): key is PatchableKey {
  return (PATCHABLE_KEYS as readonly string[]).includes(key);
}

/** The ports that will really be listened on (the HTTPS one only while HTTPS is on). */
function portsInUse(s: DesktopSettings): PortKey[] {
  return s.httpsEnabled
    ? ["parcelPort", "parcelHttpsPort", "proxyPort"]
    : ["parcelPort", "proxyPort"];
}

/**
 * Checks `patch` against the rules of each field, then the merged result against the rules
 * between fields (ports distinct from each other and from the core's controller port).
 */
export function validateSettingsPatch(
  patch: unknown,
  current: DesktopSettings,
  lang: DesktopLanguage = "en",
): PatchResult {
  const t = translator(lang);
  const fieldName = (key: string): string =>
    isPatchable(key) ? t(`settings.field.${key}` as DesktopKey) : key;
  const error = (
    field: string,
    code: SettingsErrorCode,
    vars: Record<string, string | number> = {},
  ): SettingsError => ({
    field,
    code,
    message: t(`settings.error.${code}` as DesktopKey, {
      field: fieldName(field),
      count: MAX_CHOSEN_ENTRIES,
      ...vars,
    }),
  });

  if (typeof patch !== "object" || patch === null || Array.isArray(patch))
    return { ok: false, errors: [error("", "not_object")] };

  const errors: SettingsError[] = [];
  const accepted: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(patch)) {
    if (!isPatchable(key)) {
      errors.push(error(key, "unknown"));
      continue;
    }
    const parsed = (SETTINGS_FIELDS[key] as z.ZodType).safeParse(value);
    if (parsed.success) accepted[key] = parsed.data;
    else errors.push(error(key, CODE_BY_FIELD[key]));
  }
  if (errors.length > 0) return { ok: false, errors };

  const next = { ...current, ...accepted } as DesktopSettings;
  const used = portsInUse(next);
  for (const [i, key] of used.entries()) {
    // Name the field the operator touched, not the one that was already there.
    const earlier = used.slice(0, i).find((other) => next[other] === next[key]);
    if (earlier !== undefined) {
      const [field, other] =
        key in accepted || !(earlier in accepted) ? [key, earlier] : [earlier, key];
      errors.push(error(field, "port_clash", { other: fieldName(other) }));
    }
    if (next[key] === DEFAULT_CONTROLLER_PORT)
      errors.push(error(key, "port_core", { port: DEFAULT_CONTROLLER_PORT }));
  }
  if (errors.length > 0) return { ok: false, errors };

  const changed = PATCHABLE_KEYS.filter(
    (key) => key in accepted && JSON.stringify(current[key]) !== JSON.stringify(next[key]),
  );
  return { ok: true, settings: next, changed };
}

export interface RestartPlan {
  /** The services must be restarted for the change to take effect. */
  restart: boolean;
  /** Changed settings the services read at start (ports, host, HTTPS, entries, core). */
  restartKeys: SettingKey[];
  /** Changed settings the app applies while running (language, theme, tray, login item). */
  liveKeys: SettingKey[];
}

const RESTART_KEYS: readonly SettingKey[] = [
  "parcelPort",
  "httpsEnabled",
  "parcelHttpsPort",
  "proxyPort",
  "host",
  "entries",
  "lanName",
  "coreBinary",
  "coreServiceMode",
  "coreUnit",
];

/** Which of the changes between two settings need the services restarted. */
export function restartNeeded(before: DesktopSettings, after: DesktopSettings): RestartPlan {
  const restartKeys: SettingKey[] = [];
  const liveKeys: SettingKey[] = [];
  for (const key of Object.keys(SETTINGS_FIELDS) as SettingKey[]) {
    if (JSON.stringify(before[key]) === JSON.stringify(after[key])) continue;
    // The HTTPS port is only listened on while HTTPS is on.
    if (key === "parcelHttpsPort" && !before.httpsEnabled && !after.httpsEnabled) {
      liveKeys.push(key);
      continue;
    }
    // The unit is only used in systemd mode.
    if (
      key === "coreUnit" &&
      before.coreServiceMode !== "systemd" &&
      after.coreServiceMode !== "systemd"
    ) {
      liveKeys.push(key);
      continue;
    }
    (RESTART_KEYS.includes(key) ? restartKeys : liveKeys).push(key);
  }
  return { restart: restartKeys.length > 0, restartKeys, liveKeys };
}
