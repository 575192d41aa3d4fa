import { describe, expect, it } from "vitest";
import Conf from "conf";
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  DESKTOP_DEFAULTS,
  SETTINGS_FILE_NAME,
  type DesktopSettings,
} from "../../main/settings/schema.js";
import {
  applySettingsPatch,
  openDesktopSettings,
  readSettings,
  repairSettingsFile,
  type DesktopStoreOptions,
} from "../../main/settings/store.js";

type Store = Conf<DesktopSettings>;
const create = (options: DesktopStoreOptions): Store =>
  new Conf<DesktopSettings>(
    options as unknown as ConstructorParameters<typeof Conf<DesktopSettings>>[0],
  );

function dir(): string {
  return mkdtempSync(join(tmpdir(), "gh-settings-"));
}

function fileIn(cwd: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(cwd, SETTINGS_FILE_NAME), "utf8")) as Record<string, unknown>;
}

const NOW = new Date("2026-03-01T10:00:00Z");

describe("desktop settings store", () => {
  it("starts from the defaults and writes them to a new file", () => {
    const cwd = dir();
    const { store, repair } = openDesktopSettings(create, cwd, NOW);
    expect(repair.action).toBe("none");
    expect(readSettings(store)).toEqual(DESKTOP_DEFAULTS);
    // Defaults that are false or null are in the file too (conf only keeps truthy ones itself).
    expect(fileIn(cwd)).toMatchObject({ httpsEnabled: false, coreBinary: null, entries: "all" });
  });

  it("refuses to store a value outside the schema", () => {
    const { store } = openDesktopSettings(create, dir(), NOW);
    expect(() => store.set("parcelPort", 70000)).toThrow();
    expect(() => store.set("theme", "purple" as never)).toThrow();
    expect(() => store.set("entries", ["192.168.1.2", 3] as never)).toThrow();
    store.set("theme", "dark");
    expect(store.get("theme")).toBe("dark");
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
    const { store, repair } = openDesktopSettings(create, cwd, NOW);
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
    const { store, repair } = openDesktopSettings(create, cwd, NOW);
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
    const { store, repair } = openDesktopSettings(create, cwd, NOW);
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

describe("applySettingsPatch", () => {
  it("stores an accepted change and says the services must restart for a port", () => {
    const cwd = dir();
    const { store } = openDesktopSettings(create, cwd, NOW);
    const result = applySettingsPatch(store, { parcelPort: 8100, theme: "dark" });
    expect(result).toEqual({
      ok: true,
      settings: { ...DESKTOP_DEFAULTS, parcelPort: 8100, theme: "dark" },
      plan: { restart: true, restartKeys: ["parcelPort"], liveKeys: ["theme"] },
    });
    // A fresh store reads it back from the file.
    expect(readSettings(openDesktopSettings(create, cwd, NOW).store)).toMatchObject({
      parcelPort: 8100,
      theme: "dark",
    });
  });

  it("writes nothing when one value of the change is refused", () => {
    const cwd = dir();
    const { store } = openDesktopSettings(create, cwd, NOW);
    const result = applySettingsPatch(store, { theme: "dark", proxyPort: 8000 });
    expect(result.ok).toBe(false);
    expect(readSettings(store).theme).toBe("system");
    expect(fileIn(cwd).theme).toBe("system");
  });
});
