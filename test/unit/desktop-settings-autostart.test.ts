import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import {
  applyAutostart,
  autostartFile,
  quoteExecArg,
  startsHidden,
} from "../../main/settings/autostart.js";

function dir(): string {
  return mkdtempSync(join(tmpdir(), "gh-autostart-"));
}

function execLine(text: string): string {
  const line = text.split("\n").find((l) => l.startsWith("Exec="));
  if (!line) throw new Error("no Exec line");
  return line.slice(5);
}

describe("Linux autostart entry", () => {
  it("lives under XDG_CONFIG_HOME when set, else ~/.config", () => {
    expect(autostartFile({ XDG_CONFIG_HOME: "/home/ann/.cfg" })).toBe(
      "/home/ann/.cfg/autostart/gatehouse.desktop",
    );
    expect(autostartFile({})).toBe(join(homedir(), ".config", "autostart", "gatehouse.desktop"));
    // A relative value is invalid per the spec and ignored.
    expect(autostartFile({ XDG_CONFIG_HOME: "cfg" })).toBe(
      join(homedir(), ".config", "autostart", "gatehouse.desktop"),
    );
  });

  it("writes an entry that starts the installed app hidden, and removes it again", () => {
    const config = dir();
    const options = {
      enabled: true,
      hidden: true,
      execPath: "/opt/Gatehouse/gatehouse",
      platform: "linux" as const,
      env: { XDG_CONFIG_HOME: config },
    };
    const written = applyAutostart(options);
    const file = join(config, "autostart", "gatehouse.desktop");
    expect(written).toEqual({ kind: "desktop-file", file, action: "written" });
    const text = readFileSync(file, "utf8");
    expect(text.startsWith("[Desktop Entry]\n")).toBe(true);
    expect(text).toContain("\nType=Application\n");
    expect(text).toContain("\nX-GNOME-Autostart-enabled=true\n");
    expect(execLine(text)).toBe("/opt/Gatehouse/gatehouse --hidden");
    expect(statSync(file).mode & 0o777).toBe(0o644);

    expect(applyAutostart({ ...options, enabled: false })).toEqual({
      kind: "desktop-file",
      file,
      action: "removed",
    });
    expect(existsSync(file)).toBe(false);
    expect(applyAutostart({ ...options, enabled: false }).kind).toBe("desktop-file");
  });

  it("starts the AppImage itself (not its temporary mount), shown when not minimised", () => {
    const config = dir();
    applyAutostart({
      enabled: true,
      hidden: false,
      execPath: "/tmp/.mount_GatehoXYZ/gatehouse",
      appArgs: ["/ignored"],
      platform: "linux",
      env: { APPIMAGE: "/home/ann/Apps/Gatehouse-0.1.0.AppImage" },
      configDir: config,
    });
    const text = readFileSync(join(config, "autostart", "gatehouse.desktop"), "utf8");
    expect(execLine(text)).toBe("/home/ann/Apps/Gatehouse-0.1.0.AppImage");
  });

  it("names the app folder after Electron when run from a checkout", () => {
    const config = dir();
    applyAutostart({
      enabled: true,
      hidden: true,
      execPath: "/src/gatehouse/node_modules/electron/dist/electron",
      appArgs: ["/src/gatehouse"],
      platform: "linux",
      env: {},
      configDir: config,
    });
    const text = readFileSync(join(config, "autostart", "gatehouse.desktop"), "utf8");
    expect(execLine(text)).toBe(
      "/src/gatehouse/node_modules/electron/dist/electron /src/gatehouse --hidden",
    );
  });

  it("quotes paths with spaces and escapes what the Exec rules reserve", () => {
    expect(quoteExecArg("/home/ann/My Apps/Gatehouse.AppImage")).toBe(
      '"/home/ann/My Apps/Gatehouse.AppImage"',
    );
    // `$` escaped for the quoting rule; that backslash doubled for the string rule.
    expect(quoteExecArg("/opt/a$b")).toBe('"/opt/a\\\\$b"');
    expect(quoteExecArg("/opt/100%/app")).toBe("/opt/100%%/app");
    expect(quoteExecArg('/opt/say "hi"')).toBe('"/opt/say \\\\"hi\\\\""');
    expect(quoteExecArg("/opt/back\\slash")).toBe('"/opt/back\\\\\\\\slash"');
  });
});

describe("login items on macOS and Windows", () => {
  it("plans a hidden login item on macOS", () => {
    expect(
      applyAutostart({
        enabled: true,
        hidden: true,
        execPath: "/Applications/Gatehouse.app",
        platform: "darwin",
      }),
    ).toEqual({ kind: "login-item", settings: { openAtLogin: true, openAsHidden: true } });
    expect(
      applyAutostart({ enabled: false, hidden: true, execPath: "/x", platform: "darwin" }),
    ).toEqual({ kind: "login-item", settings: { openAtLogin: false, openAsHidden: false } });
  });

  it("plans the executable and the hidden flag on Windows, and nothing on disk", () => {
    const config = dir();
    const exe = "C:\\Users\\ann\\AppData\\Local\\Programs\\Gatehouse\\Gatehouse.exe";
    expect(
      applyAutostart({
        enabled: true,
        hidden: true,
        execPath: exe,
        platform: "win32",
        env: { APPIMAGE: "/not/used" },
        configDir: config,
      }),
    ).toEqual({
      kind: "login-item",
      settings: { openAtLogin: true, path: exe, args: ["--hidden"] },
    });
    expect(
      applyAutostart({ enabled: false, hidden: false, execPath: exe, platform: "win32" }),
    ).toEqual({ kind: "login-item", settings: { openAtLogin: false, path: exe } });
    expect(existsSync(join(config, "autostart"))).toBe(false);
  });
});

describe("startsHidden", () => {
  it("hides the window for the login flag, the setting, or a hidden macOS login", () => {
    expect(startsHidden(["/opt/gatehouse", "--hidden"], false)).toBe(true);
    expect(startsHidden(["/opt/gatehouse"], true)).toBe(true);
    expect(startsHidden(["/opt/gatehouse"], false, true)).toBe(true);
    expect(startsHidden(["/opt/gatehouse"], false)).toBe(false);
  });
});
