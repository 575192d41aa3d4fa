import type {
  DesktopSettingsResult,
  DesktopSettingsView,
  SettingsError,
} from "../../../preload/contract.js";
import type {
  FieldErrors,
  FieldRule,
  FieldRules,
  FormSpec,
} from "../../shared/ui/settings-form.js";
import type { DesktopKey } from "./i18n.js";

/** Which networks get an address, as the form shows it: every one, or those ticked. */
export interface EntriesDraft {
  mode: "all" | "chosen";
  /** Chosen interfaces (or addresses), in the order they were chosen. */
  chosen: string[];
}

/** The settings form's fields as typed (ports as text until saved). */
export interface Draft {
  language: DesktopSettingsView["language"];
  theme: DesktopSettingsView["theme"];
  host: string;
  parcelPort: string;
  proxyPort: string;
  httpsEnabled: boolean;
  parcelHttpsPort: string;
  entries: EntriesDraft;
  lanName: boolean;
  startAtLogin: boolean;
  closeToTray: boolean;
  startMinimized: boolean;
  coreBinary: string;
  coreServiceMode: DesktopSettingsView["coreServiceMode"];
  coreUnit: string;
}

export type DraftErrors = FieldErrors<Draft, DesktopKey>;

/** A member shown and saved as it is (a choice or a switch). */
function asIs<V>(): FieldRule<V, V, DesktopKey> {
  return { draft: (v) => v, parse: (d) => ({ value: d }) };
}

/** Text saved without the spaces around it. */
const text: FieldRule<string, string, DesktopKey> = {
  draft: (v) => v,
  parse: (d) => ({ value: d.trim() }),
};

/** A port typed as text: a whole number from 1 to 65535, else the range's words. */
const port: FieldRule<number, string, DesktopKey> = {
  draft: (v) => String(v),
  parse(d) {
    const t = d.trim();
    const n = Number(t);
    return /^\d{1,5}$/.test(t) && n >= 1 && n <= 65535 ? { value: n } : { error: "err_port_range" };
  },
};

/**
 * The desktop form's fields in the shared builder. The page tells only ports that are not
 * ports; the desktop checks every field on save and names the ones it refuses.
 */
export const DESKTOP_FIELDS: FieldRules<DesktopSettingsView, Draft, DesktopKey> = {
  language: asIs(),
  theme: asIs(),
  host: text,
  parcelPort: port,
  proxyPort: port,
  httpsEnabled: asIs(),
  parcelHttpsPort: port,
  entries: {
    draft: (v) => (v === "all" ? { mode: "all", chosen: [] } : { mode: "chosen", chosen: [...v] }),
    parse: (d) => ({ value: d.mode === "all" ? "all" : d.chosen }),
  },
  lanName: asIs(),
  startAtLogin: asIs(),
  closeToTray: asIs(),
  startMinimized: asIs(),
  // Empty means the bundled core (then `mihomo` on PATH).
  coreBinary: {
    draft: (v) => v ?? "",
    parse: (d) => ({ value: d.trim() === "" ? null : d.trim() }),
  },
  coreServiceMode: asIs(),
  coreUnit: text,
};

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

const ERROR_KEYS: Record<string, DesktopKey> = {
  port_range: "err_port_range",
  port_clash: "err_port_clash",
  port_core: "err_port_core",
  host_ip: "err_host_ip",
  entries: "err_entries",
  path_absolute: "err_path_absolute",
  unit_name: "err_unit_name",
};

/** The desktop's field errors as words of this page, by field (the first of each field). */
export function fieldErrors(errors: SettingsError[]): DraftErrors {
  const out: Record<string, DesktopKey> = {};
  for (const e of errors) out[e.field] ??= ERROR_KEYS[e.code] ?? "err_other";
  return out as DraftErrors;
}

/** The desktop refused the change and named the fields it refuses. */
export class SettingsRefused extends Error {
  constructor(readonly errors: SettingsError[]) {
    super("settings refused");
  }
}

/** A stored change, with the members that were sent (the page follows language and theme). */
export type Stored = Extract<DesktopSettingsResult, { ok: true }> & {
  sent: Partial<DesktopSettingsView>;
};

/**
 * The desktop form's spec for the shared builder, saving through `set` (the desktop's
 * `settings.set`): only what changed is sent; a later load refills the form only while
 * nothing is typed; a refusal is said beside each field it names.
 */
export function desktopFormSpec(
  set: (patch: Partial<DesktopSettingsView>) => Promise<DesktopSettingsResult>,
): FormSpec<DesktopSettingsView, Draft, DesktopKey, Stored> {
  return {
    fields: DESKTOP_FIELDS,
    refill: "untouched",
    async send(_values, sent) {
      const result = await set(sent);
      if (!result.ok) throw new SettingsRefused(result.errors);
      return { ...result, sent };
    },
    savedOf: (stored) => stored.settings,
    refusal: (err) => (err instanceof SettingsRefused ? fieldErrors(err.errors) : null),
  };
}
