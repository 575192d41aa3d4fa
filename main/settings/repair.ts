import { copyFileSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { translator, type DesktopKey, type DesktopLanguage } from "../i18n.js";
import { SETTINGS_FIELDS, SETTINGS_FILE_NAME, SETTING_KEYS } from "./schema.js";

/**
 * Keeping the operator's choices when the settings file holds something the current rules
 * refuse. conf refuses a whole file when one value breaks the schema (and with
 * `clearInvalidConfig` it would answer `{}` for all of it), so the file is looked at first and
 * mended key by key: a refused value takes its default, the others stay, the file as it was is
 * kept beside it, and the operator is told which settings changed (`repairNotice`).
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

export const NO_REPAIR: SettingsRepair = { action: "none", reset: [], upgraded: [], backup: null };

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
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return NO_REPAIR;
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
  if (reset.length === 0 && upgraded.length === 0) return NO_REPAIR;
  copyFileSync(file, backup);
  const temp = `${file}.tmp-${process.pid}`;
  writeFileSync(temp, JSON.stringify(record, null, "\t"), { mode: 0o600 });
  renameSync(temp, file);
  return { action: "fixed", reset, upgraded, backup };
}

/** Where builds that let electron-store pick the name kept the settings. */
export const MISNAMED_FILE_NAME = "config.json";

/**
 * Earlier builds opened the store without a `name`, so electron-store wrote the settings to
 * `<userData>/config.json`. When that file is there and ours is not, it becomes ours (its
 * values are then checked like any other), so an upgrade keeps the operator's choices.
 * Returns true when it moved the file.
 */
export function adoptMisnamedFile(dir: string): boolean {
  const ours = join(dir, SETTINGS_FILE_NAME);
  const old = join(dir, MISNAMED_FILE_NAME);
  if (existsSync(ours) || !existsSync(old)) return false;
  try {
    const data = JSON.parse(readFileSync(old, "utf8")) as unknown;
    // Only a file that looks like these settings: another library's config.json stays put.
    const looksOurs =
      typeof data === "object" &&
      data !== null &&
      SETTING_KEYS.some((key) => key in (data as Record<string, unknown>));
    if (!looksOurs) return false;
  } catch {
    return false;
  }
  renameSync(old, ours);
  return true;
}

/**
 * The sentence the operator reads after a repair that changed what the app does, or null
 * when nothing they chose was lost (no repair, or only old spellings upgraded).
 */
export function repairNotice(repair: SettingsRepair, lang: DesktopLanguage): string | null {
  const t = translator(lang);
  const file = repair.backup ? basename(repair.backup) : "";
  if (repair.action === "cleared") return t("settings.cleared", { file });
  if (repair.action !== "fixed" || repair.reset.length === 0) return null;
  const names = repair.reset.map((key) => t(`settings.field.${key}` as DesktopKey));
  return t("settings.repaired", { fields: names.join(lang === "zh-CN" ? "、" : ", "), file });
}
