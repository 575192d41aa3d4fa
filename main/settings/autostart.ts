import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/**
 * Start at login. Linux has no Electron API for it: the freedesktop autostart spec reads
 * `$XDG_CONFIG_HOME/autostart/*.desktop`, so the file is written here. macOS and Windows
 * are told through `app.setLoginItemSettings`; this module says with what, and the wiring
 * applies it.
 */

/** Argument that asks the app to start in the tray without showing its window. */
export const HIDDEN_FLAG = "--hidden";
export const AUTOSTART_FILE_NAME = "gatehouse.desktop";

export interface AutostartOptions {
  enabled: boolean;
  /** Start without showing the window (the "start minimised" setting). */
  hidden: boolean;
  /** `process.execPath` (the installed app's executable, or Electron's in a checkout). */
  execPath: string;
  /** Arguments before the flag: the app's folder when running from a checkout. */
  appArgs?: string[];
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
  /** Base of `autostart/` in place of `$XDG_CONFIG_HOME` or `~/.config` (tests). */
  configDir?: string;
}

export interface LoginItemPlan {
  openAtLogin: boolean;
  /** macOS: opened without showing windows. */
  openAsHidden?: boolean;
  /** Windows: the executable and its arguments at login. */
  path?: string;
  args?: string[];
}

export type AutostartResult =
  | { kind: "desktop-file"; file: string; action: "written" | "removed" | "absent" }
  | { kind: "login-item"; settings: LoginItemPlan };

/** `$XDG_CONFIG_HOME/autostart/gatehouse.desktop` (`~/.config` when unset or not absolute). */
export function autostartFile(env: NodeJS.ProcessEnv = process.env, configDir?: string): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = configDir ?? (xdg && xdg.startsWith("/") ? xdg : join(homedir(), ".config"));
  return join(base, "autostart", AUTOSTART_FILE_NAME);
}

/**
 * One argument of a desktop entry's `Exec` line: quoted when it holds anything but plain
 * characters, with `"`, `` ` ``, `$` and `\` escaped inside the quotes, `%` doubled (field
 * codes), and every backslash doubled once more (and line breaks and tabs escaped) because
 * the whole value is a desktop-file string.
 */
export function quoteExecArg(arg: string): string {
  let out = arg.replace(/%/g, "%%");
  if (/[\s"'\\><~|&;$*?#()`=]/.test(out) || out === "") {
    out = `"${out.replace(/(["`$\\])/g, "\\$1")}"`;
  }
  return out
    .replace(/\\/g, "\\\\")
    .replace(/\n/g, "\\n")
    .replace(/\r/g, "\\r")
    .replace(/\t/g, "\\t");
}

/** The autostart desktop entry's text. */
export function desktopEntry(command: string[]): string {
  return [
    "[Desktop Entry]",
    "Type=Application",
    "Version=1.0",
    "Name=Gatehouse",
    "Comment=Parcel transfer and proxy management for the home gateway",
    `Exec=${command.map(quoteExecArg).join(" ")}`,
    "Icon=gatehouse",
    "Terminal=false",
    "X-GNOME-Autostart-enabled=true",
    "",
  ].join("\n");
}

/** What to run at login: the AppImage itself when running from one (its mount is temporary). */
export function loginCommand(options: AutostartOptions): string[] {
  const env = options.env ?? process.env;
  const exe = env.APPIMAGE || options.execPath;
  const args = env.APPIMAGE ? [] : (options.appArgs ?? []);
  return [exe, ...args, ...(options.hidden ? [HIDDEN_FLAG] : [])];
}

/** Writes or removes the Linux autostart entry, or says what login item to set elsewhere. */
export function applyAutostart(options: AutostartOptions): AutostartResult {
  const platform = options.platform ?? process.platform;
  if (platform === "darwin")
    return {
      kind: "login-item",
      settings: { openAtLogin: options.enabled, openAsHidden: options.enabled && options.hidden },
    };
  if (platform === "win32") {
    const [path, ...args] = loginCommand({ ...options, env: {} });
    return {
      kind: "login-item",
      settings: options.enabled ? { openAtLogin: true, path, args } : { openAtLogin: false, path },
    };
  }
  const file = autostartFile(options.env ?? process.env, options.configDir);
  if (!options.enabled) {
    if (!existsSync(file)) return { kind: "desktop-file", file, action: "absent" };
    rmSync(file, { force: true });
    return { kind: "desktop-file", file, action: "removed" };
  }
  mkdirSync(join(file, ".."), { recursive: true });
  const temp = `${file}.tmp-${process.pid}`;
  writeFileSync(temp, desktopEntry(loginCommand(options)), { mode: 0o644 });
  // Readable by the session's autostart reader whatever the umask.
  chmodSync(temp, 0o644);
  renameSync(temp, file);
  return { kind: "desktop-file", file, action: "written" };
}

/** The app was started to sit in the tray: by its login entry, or by the setting. */
export function startsHidden(
  argv: readonly string[],
  startMinimized: boolean,
  openedAsHidden = false,
): boolean {
  return startMinimized || openedAsHidden || argv.includes(HIDDEN_FLAG);
}
