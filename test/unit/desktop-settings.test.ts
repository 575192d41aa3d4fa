import { describe, expect, it } from "vitest";
import Conf from "conf";
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  DESKTOP_DEFAULTS,
  DESKTOP_STORE_OPTIONS,
  type DesktopSettings,
} from "../../main/settings/schema.js";

function open(cwd: string): Conf<DesktopSettings> {
  return new Conf<DesktopSettings>({ ...DESKTOP_STORE_OPTIONS, cwd } as ConstructorParameters<
    typeof Conf<DesktopSettings>
  >[0]);
}

describe("desktop settings schema", () => {
  it("starts from the defaults", () => {
    const store = open(mkdtempSync(join(tmpdir(), "gh-settings-")));
    expect(store.store).toMatchObject(DESKTOP_DEFAULTS);
  });

  it("rejects a value outside the schema", () => {
    const store = open(mkdtempSync(join(tmpdir(), "gh-settings-")));
    expect(() => store.set("parcelPort", 70000)).toThrow();
    expect(() => store.set("theme", "purple" as never)).toThrow();
    store.set("theme", "dark");
    expect(store.get("theme")).toBe("dark");
  });

  it("migrates the old `lang` key", () => {
    const cwd = mkdtempSync(join(tmpdir(), "gh-settings-"));
    mkdirSync(cwd, { recursive: true });
    writeFileSync(
      join(cwd, "desktop-settings.json"),
      JSON.stringify({ lang: "zh", __internal__: { migrations: { version: "0.0.1" } } }),
    );
    const store = open(cwd);
    expect(store.get("language")).toBe("zh-CN");
    expect(JSON.parse(readFileSync(join(cwd, "desktop-settings.json"), "utf8"))).not.toHaveProperty(
      "lang",
    );
  });
});
