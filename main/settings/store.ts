import { copyFileSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DesktopLanguage } from "../i18n.js";
import {
  DESKTOP_STORE_OPTIONS,
  SETTINGS_FIELDS,
  SETTINGS_FILE_NAME,
  SETTING_KEYS,
  settingsFrom,
  type DesktopSettings,
} from "./schema.js";
import {
  restartNeeded,
  validateSettingsPatch,
  type RestartPlan,
  type SettingsError,
} from "./validate.js";

/**
 * Opening the settings file without losing the operator's choices to one bad value. conf
 * refuses a whole file when any value breaks the schema (and `clearInvalidConfig` only covers
 * unreadable JSON, which it then overwrites), so the file is looked at first.
 */

export interface SettingsRepair {
  /** `none`: the file was fine or absent; `fixed`: some values changed; `cleared`: unreadable. */
  action: "none" | "fixed" | "cleared";
  /** Settings whose stored value was refused and now take their default. */
  reset: string[];
  /** Settings whose old form was turned into the current one. */
  upgraded: string[];
  /** Where the original file was kept, when it was changed. */
  backup: string | null;
}

const NOTHING: SettingsRepair = { action: "none", reset: [], upgraded: [], backup: null };

/**
 * Values older builds accepted that the current rules refuse, turned into what they meant.
 * A value not listed here that breaks a rule is reset to its default.
 */
const LEGACY_VALUES: Partial<Record<string, (value: unknown) => unknown>> = {
  // The listen address was once any name; only an IP literal is accepted now.
  host: (value) => (value === "localhost" ? "127.0.0.1" : value),
};

function stamp(now: Date): string {
  return now.toISOString().replace(/[:.]/g, "-");
}

/**
 * Makes the settings file at `file` one conf accepts: an unreadable file is moved aside (the
 * app starts from defaults), a refused value is upgraded or dropped (its default applies) and
 * the original kept beside it. Keys this build does not know are left for the migrations.
 */
export function repairSettingsFile(file: string, now: Date = new Date()): SettingsRepair {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return NOTHING;
    throw err;
  }
  const backup = `${file}.invalid-${stamp(now)}`;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    data = undefined;
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    renameSync(file, backup);
    return { action: "cleared", reset: [], upgraded: [], backup };
  }
  const record = data as Record<string, unknown>;
  const reset: string[] = [];
  const upgraded: string[] = [];
  for (const key of SETTING_KEYS) {
    if (!(key in record)) continue;
    const legacy = LEGACY_VALUES[key];
    const value = legacy ? legacy(record[key]) : record[key];
    if (SETTINGS_FIELDS[key].safeParse(value).success) {
      if (value !== record[key]) {
        record[key] = value;
        upgraded.push(key);
      }
    } else {
      delete record[key];
      reset.push(key);
    }
  }
  if (reset.length === 0 && upgraded.length === 0) return NOTHING;
  copyFileSync(file, backup);
  const temp = `${file}.tmp-${process.pid}`;
  writeFileSync(temp, JSON.stringify(record, null, "\t"), { mode: 0o600 });
  renameSync(temp, file);
  return { action: "fixed", reset, upgraded, backup };
}

export type DesktopStoreOptions = typeof DESKTOP_STORE_OPTIONS & { cwd: string };

/** The part of conf / electron-store the desktop uses. */
export interface SettingsStore {
  readonly store: Record<string, unknown>;
  set(values: Record<string, unknown>): void;
}

/**
 * Repairs, then opens the settings in `cwd` with the given constructor: electron-store in the
 * app (`(o) => new Store(o)` with `app.getPath("userData")`), conf in tests.
 */
export function openDesktopSettings<S>(
  create: (options: DesktopStoreOptions) => S,
  cwd: string,
  now: Date = new Date(),
): { store: S; repair: SettingsRepair } {
  const repair = repairSettingsFile(join(cwd, SETTINGS_FILE_NAME), now);
  return { store: create({ ...DESKTOP_STORE_OPTIONS, cwd }), repair };
}

/** The settings as the app uses them (defaults for anything missing). */
export function readSettings(store: SettingsStore): DesktopSettings {
  return settingsFrom(store.store);
}

export type ApplyResult =
  | { ok: true; settings: DesktopSettings; plan: RestartPlan }
  | { ok: false; errors: SettingsError[] };

/**
 * Checks and stores a change from the settings screen; says what the app must do about it.
 * Nothing is written unless every value is accepted.
 */
export function applySettingsPatch(
  store: SettingsStore,
  patch: unknown,
  lang: DesktopLanguage = "en",
): ApplyResult {
  const before = readSettings(store);
  const checked = validateSettingsPatch(patch, before, lang);
  if (!checked.ok) return checked;
  if (checked.changed.length > 0)
    store.set(Object.fromEntries(checked.changed.map((k) => [k, checked.settings[k]])));
  const after = readSettings(store);
  return { ok: true, settings: after, plan: restartNeeded(before, after) };
}
