import type { DesktopSettingsView, SettingsError } from "../../../preload/contract.js";
import type { DesktopKey } from "./i18n.js";

/** The settings form's fields as typed (ports as text until saved). */
export interface Draft {
  language: DesktopSettingsView["language"];
  theme: DesktopSettingsView["theme"];
  host: string;
  parcelPort: string;
  proxyPort: string;
  httpsEnabled: boolean;
  parcelHttpsPort: string;
  entriesMode: "all" | "chosen";
  /** Chosen interfaces (or addresses), in the order they were chosen. */
  chosen: string[];
  lanName: boolean;
  startAtLogin: boolean;
  closeToTray: boolean;
  startMinimized: boolean;
  coreBinary: string;
  coreServiceMode: DesktopSettingsView["coreServiceMode"];
  coreUnit: string;
}

export type Patch = Partial<DesktopSettingsView>;

export function draftOf(s: DesktopSettingsView): Draft {
  return {
    language: s.language,
    theme: s.theme,
    host: s.host,
    parcelPort: String(s.parcelPort),
    proxyPort: String(s.proxyPort),
    httpsEnabled: s.httpsEnabled,
    parcelHttpsPort: String(s.parcelHttpsPort),
    entriesMode: s.entries === "all" ? "all" : "chosen",
    chosen: s.entries === "all" ? [] : [...s.entries],
    lanName: s.lanName,
    startAtLogin: s.startAtLogin,
    closeToTray: s.closeToTray,
    startMinimized: s.startMinimized,
    coreBinary: s.coreBinary ?? "",
    coreServiceMode: s.coreServiceMode,
    coreUnit: s.coreUnit,
  };
}

/** Settings whose change restarts the services (the main side decides; this marks fields). */
export const RESTARTS = new Set<keyof DesktopSettingsView>([
  "host",
  "parcelPort",
  "proxyPort",
  "httpsEnabled",
  "parcelHttpsPort",
  "entries",
  "lanName",
  "coreBinary",
  "coreServiceMode",
  "coreUnit",
]);

function port(text: string): number | null {
  const t = text.trim();
  if (!/^\d{1,5}$/.test(t)) return null;
  const n = Number(t);
  return n >= 1 && n <= 65535 ? n : null;
}

/**
 * What changed against the saved settings, as the patch the desktop takes, and the fields the
 * page can already tell are wrong (ports that are not ports); the desktop checks the rest.
 */
export function patchOf(
  draft: Draft,
  saved: DesktopSettingsView,
): { patch: Patch; errors: Record<string, DesktopKey> } {
  const errors: Record<string, DesktopKey> = {};
  const next: Patch = {
    language: draft.language,
    theme: draft.theme,
    host: draft.host.trim(),
    httpsEnabled: draft.httpsEnabled,
    entries: draft.entriesMode === "all" ? "all" : draft.chosen,
    lanName: draft.lanName,
    startAtLogin: draft.startAtLogin,
    closeToTray: draft.closeToTray,
    startMinimized: draft.startMinimized,
    coreBinary: draft.coreBinary.trim() === "" ? null : draft.coreBinary.trim(),
    coreServiceMode: draft.coreServiceMode,
    coreUnit: draft.coreUnit.trim(),
  };
  for (const key of ["parcelPort", "proxyPort", "parcelHttpsPort"] as const) {
    const n = port(draft[key]);
    if (n === null) errors[key] = "err_port_range";
    else next[key] = n;
  }
  const patch: Patch = {};
  for (const [key, value] of Object.entries(next) as Array<[keyof Patch, unknown]>) {
    if (JSON.stringify(value) !== JSON.stringify(saved[key]))
      (patch as Record<string, unknown>)[key] = value;
  }
  return { patch, errors };
}

const ERROR_KEYS: Record<string, DesktopKey> = {
  port_range: "err_port_range",
  port_clash: "err_port_clash",
  port_core: "err_port_core",
  host_ip: "err_host_ip",
  entries: "err_entries",
  path_absolute: "err_path_absolute",
  unit_name: "err_unit_name",
};

/** The desktop's field errors as words of this page, by field (the form's own names). */
export function fieldErrors(errors: SettingsError[]): Record<string, DesktopKey> {
  const out: Record<string, DesktopKey> = {};
  for (const e of errors) out[e.field] ??= ERROR_KEYS[e.code] ?? "err_other";
  return out;
}
