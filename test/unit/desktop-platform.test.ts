import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import {
  APP_USER_MODEL_ID,
  appUserModelId,
  closeAction,
  headlessRelaunchArgs,
  LINUX_HEADLESS_SWITCHES,
  RELAUNCHED_ENV,
  sandboxNote,
  startWindowPlan,
  trayAvailability,
  trayIconName,
  type TrayAvailability,
} from "../../main/platform.js";

/** Each platform's branch of every decision in main/platform.ts. */

const SEEN: TrayAvailability = { available: true };
const UNSEEN: TrayAvailability = { available: false, reason: "no_status_notifier" };

describe("Windows app id", () => {
  it("is set on Windows only, and is the installer's appId", () => {
    const builder = parse(readFileSync("electron-builder.yml", "utf8")) as { appId: string };
    expect(appUserModelId("win32")).toBe(builder.appId);
    expect(APP_USER_MODEL_ID).toBe("net.gatehouse.desktop");
    expect(appUserModelId("linux")).toBeNull();
    expect(appUserModelId("darwin")).toBeNull();
  });
});

describe("tray icon", () => {
  it("is a template image on macOS and the coloured icon elsewhere", () => {
    expect(trayIconName("darwin")).toBe("trayTemplate.png");
    expect(trayIconName("linux")).toBe("tray.png");
    expect(trayIconName("win32")).toBe("tray.png");
  });

  it("is always seen on macOS and Windows, on Linux only with a StatusNotifier host", () => {
    for (const answer of [true, false, null]) {
      expect(trayAvailability("darwin", answer)).toEqual(SEEN);
      expect(trayAvailability("win32", answer)).toEqual(SEEN);
    }
    expect(trayAvailability("linux", true)).toEqual(SEEN);
    // Stock GNOME: the bus answers, nobody owns the watcher name.
    expect(trayAvailability("linux", false)).toEqual(UNSEEN);
    expect(trayAvailability("linux", null)).toEqual({
      available: false,
      reason: "no_session_bus",
    });
  });
});

describe("closing the window", () => {
  it("hides it only when asked to and a tray is seen; quits otherwise", () => {
    expect(closeAction({ closeToTray: true, tray: SEEN })).toBe("hide");
    expect(closeAction({ closeToTray: true, tray: UNSEEN })).toBe("quit");
    expect(closeAction({ closeToTray: false, tray: SEEN })).toBe("quit");
    expect(closeAction({ closeToTray: false, tray: UNSEEN })).toBe("quit");
  });
});

describe("the first window", () => {
  it("starts in the tray when asked, maximised only once it is shown", () => {
    expect(startWindowPlan({ hidden: true, maximized: true, tray: SEEN })).toEqual({
      show: false,
      maximize: "on-first-show",
      minimize: false,
    });
    expect(startWindowPlan({ hidden: true, maximized: false, tray: SEEN })).toEqual({
      show: false,
      maximize: "no",
      minimize: false,
    });
  });

  it("starts minimised, still reachable, when there is no tray to start in", () => {
    expect(startWindowPlan({ hidden: true, maximized: true, tray: UNSEEN })).toEqual({
      show: true,
      maximize: "now",
      minimize: true,
    });
  });

  it("shows, maximised if it was, when not started hidden", () => {
    expect(startWindowPlan({ hidden: false, maximized: true, tray: UNSEEN })).toEqual({
      show: true,
      maximize: "now",
      minimize: false,
    });
    expect(startWindowPlan({ hidden: false, maximized: false, tray: SEEN })).toEqual({
      show: true,
      maximize: "no",
      minimize: false,
    });
  });
});

describe("headless without a display", () => {
  it("starts again on Linux with the display switches before the flag", () => {
    expect(
      headlessRelaunchArgs(
        "linux",
        ["/opt/Gatehouse/gatehouse", "--headless", "--data-dir", "/d"],
        {},
      ),
    ).toEqual([...LINUX_HEADLESS_SWITCHES, "--headless", "--data-dir", "/d"]);
    // A checkout (`electron . --headless`) keeps the app's folder first.
    expect(headlessRelaunchArgs("linux", ["electron", ".", "--headless"], {})).toEqual([
      ".",
      ...LINUX_HEADLESS_SWITCHES,
      "--headless",
    ]);
  });

  it("adds only what is missing, and nothing once the display platform is given", () => {
    expect(
      headlessRelaunchArgs("linux", ["gh", "--no-sandbox", "--headless", "--parcel-port", "0"], {}),
    ).toEqual([
      "--no-sandbox",
      "--ozone-platform=headless",
      "--disable-gpu",
      "--headless",
      "--parcel-port",
      "0",
    ]);
    expect(
      headlessRelaunchArgs("linux", ["gh", "--ozone-platform=headless", "--headless"], {}),
    ).toBeNull();
    // A switch after the flag belongs to the services, not to Chromium.
    expect(
      headlessRelaunchArgs("linux", ["gh", "--headless", "--ozone-platform=headless"], {}),
    ).not.toBeNull();
  });

  it("never relaunches twice, without the flag, or on macOS and Windows", () => {
    expect(
      headlessRelaunchArgs("linux", ["gh", "--headless"], { [RELAUNCHED_ENV]: "1" }),
    ).toBeNull();
    expect(headlessRelaunchArgs("linux", ["gh", "--hidden"], {})).toBeNull();
    expect(headlessRelaunchArgs("darwin", ["gh", "--headless"], {})).toBeNull();
    expect(headlessRelaunchArgs("win32", ["gh", "--headless"], {})).toBeNull();
  });

  it("matches the switches the headless unit starts the app with", () => {
    const unit = readFileSync("resources/linux/gatehouse.service", "utf8");
    const exec = /^ExecStart=(.*)$/m.exec(unit)?.[1] ?? "";
    const before = exec.split(" --headless")[0].split(" ").slice(1);
    expect(before.sort()).toEqual([...LINUX_HEADLESS_SWITCHES].sort());
  });
});

describe("sandbox note", () => {
  it("is said only on Linux from an AppImage whose launcher turned the sandbox off", () => {
    const env = { APPIMAGE: "/home/me/Gatehouse.AppImage" };
    expect(sandboxNote("linux", ["gh", "--no-sandbox"], env)).toMatch(/Install the deb package/);
    expect(sandboxNote("linux", ["gh"], env)).toBeNull();
    expect(sandboxNote("linux", ["gh", "--no-sandbox"], {})).toBeNull();
    expect(sandboxNote("darwin", ["gh", "--no-sandbox"], env)).toBeNull();
  });
});
