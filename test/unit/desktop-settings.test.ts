import { beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  DESKTOP_DEFAULTS,
  SETTINGS_FILE_NAME,
  type DesktopSettings,
} from "../../main/settings/schema.js";
import { repairNotice, type SettingsRepair } from "../../main/settings/repair.js";
import {
  applySettingsPatch,
  openDesktopSettings,
  readSettings,
  repairSettingsFile,
  type DesktopStoreOptions,
  type OpenedStore,
} from "../../main/settings/store.js";
import { loadElectronStore } from "../helpers/electron-stand-in/index.js";

/**
 * The settings through electron-store itself (with conf 15, which it brings), loaded in Node
 * with a stand-in `electron` module whose `app.getPath("userData")` is a temporary folder.
 */

let Store: Awaited<ReturnType<typeof loadElectronStore>>;
let userData = "";

beforeAll(async () => {
  userData = mkdtempSync(join(tmpdir(), "gh-user-data-"));
  Store = await loadElectronStore(userData);
});

const create = (options: DesktopStoreOptions): OpenedStore & { get(key: string): unknown } =>
  new Store<DesktopSettings>(
    options as unknown as ConstructorParameters<typeof Store<DesktopSettings>>[0],
  ) as unknown as OpenedStore & { get(key: string): unknown };

function dir(): string {
  return mkdtempSync(join(tmpdir(), "gh-settings-"));
}

function fileIn(cwd: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(cwd, SETTINGS_FILE_NAME), "utf8")) as Record<string, unknown>;
}

const NOW = new Date("2026-03-01T10:00:00Z");
const now = () => NOW;

describe("desktop settings store", () => {
  it("starts from the defaults and writes them to a new file", () => {
    const cwd = dir();
    const { store, repair } = openDesktopSettings(create, cwd, { now });
    expect(repair.action).toBe("none");
    expect(readSettings(store)).toEqual(DESKTOP_DEFAULTS);
    // Defaults that are false or null are in the file too (conf only keeps truthy ones itself).
    expect(fileIn(cwd)).toMatchObject({ httpsEnabled: false, coreBinary: null, entries: "all" });
  });

  it("refuses to store a value outside the schema", () => {
    const { store, opened } = openDesktopSettings(create, dir(), { now });
    expect(() => store.set({ parcelPort: 70000 })).toThrow();
    expect(() => store.set({ theme: "purple" })).toThrow();
    expect(() => store.set({ entries: ["192.168.1.2", 3] })).toThrow();
    store.set({ theme: "dark" });
    expect(opened.get("theme")).toBe("dark");
  });

  it("migrates an old file: `lang` becomes `language`, its values stay, new keys get defaults", () => {
    const cwd = dir();
    writeFileSync(
      join(cwd, SETTINGS_FILE_NAME),
      JSON.stringify({
        lang: "zh",
        parcelPort: 9000,
        proxyPort: 9100,
        host: "localhost",
        closeToTray: false,
        window: { width: 900, height: 700, maximized: true },
        __internal__: { migrations: { version: "0.0.1" } },
      }),
    );
    const { store, repair } = openDesktopSettings(create, cwd, { now });
    expect(repair).toMatchObject({ action: "fixed", reset: [], upgraded: ["host"] });
    expect(readSettings(store)).toEqual({
      ...DESKTOP_DEFAULTS,
      language: "zh-CN",
      parcelPort: 9000,
      proxyPort: 9100,
      host: "127.0.0.1",
      closeToTray: false,
      window: { width: 900, height: 700, maximized: true },
    });
    const onDisk = fileIn(cwd);
    expect(onDisk).not.toHaveProperty("lang");
    expect(onDisk).toMatchObject({
      language: "zh-CN",
      startAtLogin: false,
      coreServiceMode: "process",
    });
    // The file as it was is kept beside the new one.
    expect(repair.backup && JSON.parse(readFileSync(repair.backup, "utf8"))).toMatchObject({
      host: "localhost",
    });
  });

  it("resets only the refused values of a file and keeps the rest", () => {
    const cwd = dir();
    writeFileSync(
      join(cwd, SETTINGS_FILE_NAME),
      JSON.stringify({ parcelPort: 0, proxyPort: 9100, theme: "neon", host: "gateway.lan" }),
    );
    const { store, repair } = openDesktopSettings(create, cwd, { now });
    expect(repair.action).toBe("fixed");
    expect(repair.reset.sort()).toEqual(["host", "parcelPort", "theme"]);
    expect(readSettings(store)).toMatchObject({
      parcelPort: DESKTOP_DEFAULTS.parcelPort,
      proxyPort: 9100,
      theme: "system",
      host: "0.0.0.0",
    });
  });

  it("moves an unreadable file aside and starts from the defaults", () => {
    const cwd = dir();
    writeFileSync(join(cwd, SETTINGS_FILE_NAME), '{"parcelPort": 90');
    const { store, repair } = openDesktopSettings(create, cwd, { now });
    expect(repair.action).toBe("cleared");
    expect(readSettings(store)).toEqual(DESKTOP_DEFAULTS);
    expect(readFileSync(repair.backup ?? "", "utf8")).toBe('{"parcelPort": 90');
    expect(readdirSync(cwd).filter((f) => f.includes(".invalid-"))).toHaveLength(1);
  });

  it("treats a file holding JSON that is not an object as unreadable", () => {
    const cwd = dir();
    writeFileSync(join(cwd, SETTINGS_FILE_NAME), "[1,2,3]");
    expect(repairSettingsFile(join(cwd, SETTINGS_FILE_NAME), NOW).action).toBe("cleared");
    expect(existsSync(join(cwd, SETTINGS_FILE_NAME))).toBe(false);
  });

  it("leaves a valid file untouched, without a backup", () => {
    const cwd = dir();
    const text = JSON.stringify({ parcelPort: 8100, entries: ["192.168.1.20"] });
    writeFileSync(join(cwd, SETTINGS_FILE_NAME), text);
    expect(repairSettingsFile(join(cwd, SETTINGS_FILE_NAME), NOW)).toEqual({
      action: "none",
      reset: [],
      upgraded: [],
      backup: null,
    });
    expect(readFileSync(join(cwd, SETTINGS_FILE_NAME), "utf8")).toBe(text);
    expect(readdirSync(cwd)).toEqual([SETTINGS_FILE_NAME]);
  });
});

describe("the file electron-store really writes", () => {
  it("is <userData>/config.json without a name, so the store is opened with one", () => {
    // What electron-store does with conf's own option alone: the bug earlier builds had.
    const bare = new Store({
      cwd: userData,
      configName: "desktop-settings",
    } as never) as unknown as {
      path: string;
    };
    expect(bare.path).toBe(join(userData, "config.json"));
    // Through the settings module: the file the repair reads is the one the store writes.
    const cwd = dir();
    const { opened, store } = openDesktopSettings(create, cwd, { now });
    expect(opened.path).toBe(join(cwd, SETTINGS_FILE_NAME));
    store.set({ theme: "dark" });
    expect(readdirSync(cwd)).toEqual([SETTINGS_FILE_NAME]);
    expect(fileIn(cwd).theme).toBe("dark");
  });

  it("refuses to open a store that keeps its file anywhere else", () => {
    const cwd = dir();
    expect(() =>
      openDesktopSettings((o) => create({ ...o, name: "elsewhere" } as never), cwd, { now }),
    ).toThrow(/elsewhere\.json/);
  });

  it("takes over the settings an earlier build left in config.json", () => {
    const cwd = dir();
    writeFileSync(join(cwd, "config.json"), JSON.stringify({ parcelPort: 9000, theme: "neon" }));
    const seen: SettingsRepair[] = [];
    const { store } = openDesktopSettings(create, cwd, { now, onRepair: (r) => seen.push(r) });
    expect(readSettings(store)).toMatchObject({ parcelPort: 9000, theme: "system" });
    expect(existsSync(join(cwd, "config.json"))).toBe(false);
    expect(seen.map((r) => r.reset)).toEqual([["theme"]]);
  });

  it("leaves another program's config.json alone", () => {
    const cwd = dir();
    writeFileSync(join(cwd, "config.json"), JSON.stringify({ somethingElse: 1 }));
    const { store } = openDesktopSettings(create, cwd, { now });
    expect(readSettings(store)).toEqual(DESKTOP_DEFAULTS);
    expect(JSON.parse(readFileSync(join(cwd, "config.json"), "utf8"))).toEqual({
      somethingElse: 1,
    });
  });

  it("mends a value that went bad while the app runs, key by key, and says so", () => {
    const cwd = dir();
    const seen: SettingsRepair[] = [];
    const { store } = openDesktopSettings(create, cwd, { now, onRepair: (r) => seen.push(r) });
    store.set({ parcelPort: 9000, theme: "dark" });
    // Edited by hand meanwhile: one value the rules refuse. conf alone would refuse the whole
    // file (or, with clearInvalidConfig, answer {} and the next write would drop everything).
    writeFileSync(
      join(cwd, SETTINGS_FILE_NAME),
      JSON.stringify({ ...fileIn(cwd), proxyPort: "eighty" }),
    );
    expect(readSettings(store)).toMatchObject({
      parcelPort: 9000,
      theme: "dark",
      proxyPort: DESKTOP_DEFAULTS.proxyPort,
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ action: "fixed", reset: ["proxyPort"] });
    expect(repairNotice(seen[0], "en")).toMatch(
      /^Some settings could not be read and are back to their defaults: Proxy console port\. The file as it was is kept beside it as desktop-settings\.json\.invalid-/,
    );
    // A write after another bad edit keeps the rest of the file too.
    writeFileSync(join(cwd, SETTINGS_FILE_NAME), JSON.stringify({ ...fileIn(cwd), theme: 7 }));
    store.set({ startAtLogin: true });
    expect(fileIn(cwd)).toMatchObject({ parcelPort: 9000, startAtLogin: true, theme: "system" });
    expect(seen).toHaveLength(2);
  });

  it("words every repair that changed a choice, in both languages, and no other", () => {
    const cleared: SettingsRepair = {
      action: "cleared",
      reset: [],
      upgraded: [],
      backup: "/u/desktop-settings.json.invalid-x",
    };
    expect(repairNotice(cleared, "en")).toBe(
      "The settings file could not be read, so every setting is back to its default. The file as it was is kept beside it as desktop-settings.json.invalid-x.",
    );
    expect(repairNotice(cleared, "zh-CN")).toContain("desktop-settings.json.invalid-x");
    const fixed: SettingsRepair = { ...cleared, action: "fixed", reset: ["theme", "window"] };
    expect(repairNotice(fixed, "zh-CN")).toBe(
      "有些设置无法读取，已恢复为默认值：主题、窗口大小和位置。原来的文件保存在旁边，名为 desktop-settings.json.invalid-x。",
    );
    expect(repairNotice({ ...fixed, reset: [], upgraded: ["host"] }, "en")).toBeNull();
    expect(
      repairNotice({ action: "none", reset: [], upgraded: [], backup: null }, "en"),
    ).toBeNull();
  });
});

describe("applySettingsPatch", () => {
  it("stores an accepted change and says the services must restart for a port", () => {
    const cwd = dir();
    const { store } = openDesktopSettings(create, cwd, { now });
    const result = applySettingsPatch(store, { parcelPort: 8100, theme: "dark" });
    expect(result).toEqual({
      ok: true,
      settings: { ...DESKTOP_DEFAULTS, parcelPort: 8100, theme: "dark" },
      plan: { restart: true, restartKeys: ["parcelPort"], liveKeys: ["theme"] },
    });
    // A fresh store reads it back from the file.
    expect(readSettings(openDesktopSettings(create, cwd, { now }).store)).toMatchObject({
      parcelPort: 8100,
      theme: "dark",
    });
  });

  it("writes nothing when one value of the change is refused", () => {
    const cwd = dir();
    const { store } = openDesktopSettings(create, cwd, { now });
    const result = applySettingsPatch(store, { theme: "dark", proxyPort: 8000 });
    expect(result.ok).toBe(false);
    expect(readSettings(store).theme).toBe("system");
    expect(fileIn(cwd).theme).toBe("system");
  });
});
