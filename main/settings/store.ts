import { join } from "node:path";
import type { DesktopLanguage } from "../i18n.js";
import {
  DESKTOP_STORE_OPTIONS,
  SETTINGS_FILE_NAME,
  settingsFrom,
  type DesktopSettings,
} from "./schema.js";
import { adoptMisnamedFile, repairSettingsFile, type SettingsRepair } from "./repair.js";
import {
  restartNeeded,
  validateSettingsPatch,
  type RestartPlan,
  type SettingsError,
} from "./validate.js";

export { repairSettingsFile, type SettingsRepair } from "./repair.js";

/**
 * The desktop settings file, opened through electron-store (conf in its own tests) without
 * ever losing the operator's choices to one bad value: the file is mended key by key before
 * the store opens it, and again whenever it goes bad while the app runs (edited by hand, say);
 * each repair that reset something is reported through `onRepair`, never silent.
 */

export type DesktopStoreOptions = typeof DESKTOP_STORE_OPTIONS & { cwd: string };

/** The part of electron-store (and conf) the desktop uses. */
export interface SettingsStore {
  readonly store: Record<string, unknown>;
  set(values: Record<string, unknown>): void;
}

/** What a store constructor gives: its settings, where it keeps them, and a writer. */
export interface OpenedStore extends SettingsStore {
  readonly path: string;
}

export interface OpenSettingsOptions {
  /** Called after each repair that changed the file (at opening, or later). */
  onRepair?(repair: SettingsRepair): void;
  now?: () => Date;
}

/**
 * The opened store behind a guard: a read that conf refuses (the file went bad meanwhile)
 * mends the file and reads again, rather than failing or starting from nothing.
 */
class GuardedSettings implements SettingsStore {
  constructor(
    private readonly inner: OpenedStore,
    private readonly options: OpenSettingsOptions,
  ) {}

  private mend(): void {
    const repair = repairSettingsFile(this.inner.path, this.options.now?.() ?? new Date());
    if (repair.action !== "none") this.options.onRepair?.(repair);
  }

  get store(): Record<string, unknown> {
    try {
      return this.inner.store;
    } catch {
      this.mend();
      try {
        return this.inner.store;
      } catch {
        // Still unreadable (the disk refuses): defaults for this read, the file left alone.
        return {};
      }
    }
  }

  set(values: Record<string, unknown>): void {
    try {
      this.inner.set(values);
    } catch (err) {
      // conf reads the file before writing; a bad file is mended and the write tried again.
      // A value the schema refuses is the caller's error and stays one.
      if (/Config schema violation/.test((err as Error).message ?? "")) {
        this.mend();
        this.inner.set(values);
        return;
      }
      throw err;
    }
  }
}

/**
 * Repairs, then opens the settings in `cwd` (the app's user-data folder) with `create`:
 * `(o) => new Store(o)` with electron-store in the app and its tests. Throws when the store
 * keeps its file anywhere but `<cwd>/desktop-settings.json`: the repair must read the file the
 * store really uses.
 */
export function openDesktopSettings<S extends OpenedStore>(
  create: (options: DesktopStoreOptions) => S,
  cwd: string,
  options: OpenSettingsOptions = {},
): { store: SettingsStore; opened: S; repair: SettingsRepair } {
  const file = join(cwd, SETTINGS_FILE_NAME);
  adoptMisnamedFile(cwd);
  const repair = repairSettingsFile(file, options.now?.() ?? new Date());
  if (repair.action !== "none") options.onRepair?.(repair);
  const opened = create({ ...DESKTOP_STORE_OPTIONS, cwd });
  if (opened.path !== file) throw new Error(`the settings store uses ${opened.path}, not ${file}`);
  return { store: new GuardedSettings(opened, options), opened, repair };
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
