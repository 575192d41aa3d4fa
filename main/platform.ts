/**
 * Every decision of the desktop shell that depends on the platform, in one place and without
 * an `electron` import, so each platform's branch is tested in Node (test/unit/desktop-
 * platform.test.ts). The wiring (main/index.ts and the *-electron.ts adapters) only applies
 * what these functions answer.
 */

/**
 * Windows ties notifications and taskbar buttons to this id; it is electron-builder's `appId`,
 * which the NSIS installer gives the Start-menu shortcut. Without it toasts may not show and a
 * second taskbar button can appear.
 */
export const APP_USER_MODEL_ID = "net.gatehouse.desktop";

/** The id to set with `app.setAppUserModelId` before anything else, or null (not Windows). */
export function appUserModelId(platform: NodeJS.Platform): string | null {
  return platform === "win32" ? APP_USER_MODEL_ID : null;
}

/**
 * The tray icon's file in resources/icons. macOS draws menu-bar icons as templates (black and
 * alpha, tinted for light and dark bars) when the name ends in `Template`; Electron takes the
 * `@2x` file beside it on Retina screens. Elsewhere the coloured icon.
 */
export function trayIconName(platform: NodeJS.Platform): string {
  return platform === "darwin" ? "trayTemplate.png" : "tray.png";
}

/** Whether a tray icon will really be seen, and if not, why. */
export type TrayAvailability =
  { available: true } | { available: false; reason: "no_status_notifier" | "no_session_bus" };

/**
 * macOS (menu bar) and Windows (notification area) always show a tray icon. On Linux Electron
 * draws it as a StatusNotifierItem, which only a running StatusNotifierWatcher shows (KDE,
 * Cinnamon, XFCE's plugin, GNOME only with the AppIndicator extension); without one it falls
 * back to an XEmbed icon, which GNOME and every Wayland session drop. So without a watcher
 * (or without a session bus to ask) the icon is taken as unseen.
 * `watcherOwned`: the answer of `statusNotifierWatcherOwned()` (null: no answer).
 */
export function trayAvailability(
  platform: NodeJS.Platform,
  watcherOwned: boolean | null,
): TrayAvailability {
  if (platform !== "linux") return { available: true };
  if (watcherOwned === true) return { available: true };
  return {
    available: false,
    reason: watcherOwned === null ? "no_session_bus" : "no_status_notifier",
  };
}

/**
 * What closing the window does while the app is not quitting: hide it (the tray brings it
 * back) only when the setting asks for it and a tray is really there; otherwise the app quits,
 * so it never keeps its ports with nothing left to reach it by.
 */
export function closeAction(options: {
  closeToTray: boolean;
  tray: TrayAvailability;
}): "hide" | "quit" {
  return options.closeToTray && options.tray.available ? "hide" : "quit";
}

/** How the window first appears. */
export interface StartWindowPlan {
  /** Create it shown (`show` in the window's options). */
  show: boolean;
  /** Maximise now, once it is first shown (maximize() would show a hidden window), or not. */
  maximize: "now" | "on-first-show" | "no";
  /** Show it minimised (in the taskbar or dock) rather than hidden. */
  minimize: boolean;
}

/**
 * Start hidden (the "start minimised" setting or the login entry's flag) means: in the tray
 * when there is one; minimised otherwise, so the window is still reachable. A window last
 * maximised is maximised once it shows, not before: `maximize()` shows a hidden window.
 */
export function startWindowPlan(options: {
  hidden: boolean;
  maximized: boolean;
  tray: TrayAvailability;
}): StartWindowPlan {
  const { hidden, maximized, tray } = options;
  if (!hidden) return { show: true, maximize: maximized ? "now" : "no", minimize: false };
  if (tray.available)
    return { show: false, maximize: maximized ? "on-first-show" : "no", minimize: false };
  return { show: true, maximize: maximized ? "now" : "no", minimize: true };
}

/**
 * Chromium switches `gatehouse --headless` needs on Linux to run without any display: the
 * headless Ozone platform (else it stops with "Missing X server or $DISPLAY") and no GPU. No
 * page is ever loaded in headless mode, so the sandbox holds nothing, and as root (a container)
 * Chromium refuses to start with it. macOS and Windows need no display server.
 */
export const LINUX_HEADLESS_SWITCHES = [
  "--ozone-platform=headless",
  "--disable-gpu",
  "--no-sandbox",
] as const;

/** Set in the relaunched process, so it never relaunches again. */
export const RELAUNCHED_ENV = "GATEHOUSE_HEADLESS_RELAUNCHED";

/**
 * Electron picks its display platform before the app's code runs (in its main delegate's
 * PreSandboxStartup), so `app.commandLine.appendSwitch("ozone-platform", ...)` comes too late.
 * When `--headless` is given on Linux without the switches, the app starts itself again with
 * them (this answers that command line: `process.argv` minus its first item, the switches
 * before the flag); null when nothing is missing, elsewhere than Linux, or already relaunched.
 */
export function headlessRelaunchArgs(
  platform: NodeJS.Platform,
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): string[] | null {
  if (platform !== "linux" || env[RELAUNCHED_ENV]) return null;
  const at = argv.indexOf("--headless");
  if (at < 0) return null;
  const own = argv.slice(1, at);
  const missing = LINUX_HEADLESS_SWITCHES.filter((s) => {
    const name = s.split("=")[0];
    return !own.some((arg) => arg === name || arg.startsWith(`${name}=`));
  });
  // Only a missing display platform stops the app; the other two go along when it is missing.
  if (!missing.some((s) => s.startsWith("--ozone-platform"))) return null;
  return [...own, ...missing, ...argv.slice(at)];
}

/**
 * A line for the log when the app runs from an AppImage with Chromium's sandbox off: the
 * AppImage's launcher (electron-builder's AppRun) adds `--no-sandbox` only where unprivileged
 * user namespaces are refused (Ubuntu 24.04 and later restrict them by AppArmor) and the
 * setuid helper cannot work (an AppImage's mount cannot hold a root-owned 4755 file).
 */
export function sandboxNote(
  platform: NodeJS.Platform,
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): string | null {
  if (platform !== "linux" || !env.APPIMAGE || !argv.includes("--no-sandbox")) return null;
  return "Chromium's sandbox is off: this system refuses unprivileged user namespaces and an AppImage cannot carry the setuid sandbox helper. Install the deb package to keep the sandbox on.";
}
