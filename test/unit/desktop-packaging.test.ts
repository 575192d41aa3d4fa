import { describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { parse } from "yaml";
import { isAllowedNavigation } from "../../main/security.js";

const builder = parse(readFileSync("electron-builder.yml", "utf8")) as Record<string, unknown> & {
  files: string[];
  asarUnpack: string[];
  linux: { target: string[]; icon: string };
  mac: { target: string[]; icon: string };
  win: { target: string[]; icon: string };
  extraResources: Array<{ from: string; to: string }>;
};
const pkg = JSON.parse(readFileSync("package.json", "utf8")) as {
  main: string;
  scripts: Record<string, string>;
  build?: unknown;
};

describe("electron-builder.yml", () => {
  it("names the app and ships the compiled main process, the UI and the icons", () => {
    expect(builder.appId).toMatch(/^[a-z]+(\.[a-z]+)+$/);
    expect(builder.productName).toBe("Gatehouse");
    expect(pkg.main.startsWith("dist/main/")).toBe(true);
    expect(builder.files).toEqual(
      expect.arrayContaining([
        "package.json",
        "dist/main/**",
        { from: "renderer/dist", to: "dist/main/renderer/dist" },
        "resources/icons/**",
      ]),
    );
    for (const os of [builder.linux, builder.mac, builder.win]) {
      expect(os.target.length).toBeGreaterThan(0);
      expect(existsSync(os.icon)).toBe(true);
    }
  });

  it("keeps native modules outside the asar archive and ships the bundled core folder", () => {
    expect(builder.asarUnpack).toEqual(
      expect.arrayContaining(["**/node_modules/better-sqlite3/**"]),
    );
    expect(builder.extraResources).toContainEqual(
      expect.objectContaining({ from: "resources/core/${os}-${arch}", to: "core" }),
    );
    expect(existsSync("resources/core")).toBe(true);
  });

  it("rebuilds native modules only when packaging, never on install", () => {
    expect(pkg.scripts.postinstall).toBeUndefined();
    expect(pkg.scripts.dist).not.toContain("install-app-deps");
    expect(pkg.build).toBeUndefined();
  });
});

describe("desktop navigation rules", () => {
  const own = ["http://127.0.0.1:8000", "http://127.0.0.1:8080"];
  it("allows only the app's own service origins", () => {
    expect(isAllowedNavigation("http://127.0.0.1:8000/#/admin", own)).toBe(true);
    expect(isAllowedNavigation("http://127.0.0.1:8080/", own)).toBe(true);
    expect(isAllowedNavigation("http://127.0.0.1:9090/", own)).toBe(false);
    expect(isAllowedNavigation("https://example.com/", own)).toBe(false);
    expect(isAllowedNavigation("file:///etc/passwd", own)).toBe(false);
    expect(isAllowedNavigation("javascript:alert(1)", own)).toBe(false);
    expect(isAllowedNavigation("not a url", own)).toBe(false);
    expect(isAllowedNavigation("data:text/html,<p>x</p>", own)).toBe(false);
    expect(isAllowedNavigation("app://gatehouse/desktop.html", own)).toBe(true);
  });
});
