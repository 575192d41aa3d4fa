import { execFile } from "node:child_process";

/**
 * Asks the D-Bus session bus whether a StatusNotifierWatcher runs (the service that shows
 * StatusNotifierItem tray icons; Electron's Linux tray is one). `dbus-send` (package dbus-bin,
 * on every desktop with D-Bus) is asked first, then `gdbus` (GLib); no `electron` import, so
 * the real answer is tested in Node under `dbus-run-session`.
 */

export const WATCHER_NAME = "org.kde.StatusNotifierWatcher";

type Run = (file: string, args: string[]) => Promise<string>;

function run(file: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: 2000, encoding: "utf8" }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    );
  });
}

/** The two tools' command lines for `NameHasOwner(name)`, and how each prints the answer. */
const ASKERS: Array<{ file: string; args(name: string): string[]; parse(out: string): boolean }> = [
  {
    file: "dbus-send",
    args: (name) => [
      "--session",
      "--print-reply=literal",
      "--dest=org.freedesktop.DBus",
      "/org/freedesktop/DBus",
      "org.freedesktop.DBus.NameHasOwner",
      `string:${name}`,
    ],
    // "   boolean true"
    parse: (out) => /\bboolean\s+true\b/.test(out),
  },
  {
    file: "gdbus",
    args: (name) => [
      "call",
      "--session",
      "--dest",
      "org.freedesktop.DBus",
      "--object-path",
      "/org/freedesktop/DBus",
      "--method",
      "org.freedesktop.DBus.NameHasOwner",
      name,
    ],
    // "(true,)"
    parse: (out) => /^\(true,\)/.test(out.trim()),
  },
];

/**
 * Whether `name` has an owner on the session bus: true or false as the bus answers, null when
 * no tool could ask it (no session bus, neither tool installed).
 */
export async function sessionNameHasOwner(name: string, exec: Run = run): Promise<boolean | null> {
  for (const asker of ASKERS) {
    try {
      return asker.parse(await exec(asker.file, asker.args(name)));
    } catch {
      // Not installed, or no bus: the next tool, then no answer.
    }
  }
  return null;
}

/** Whether a StatusNotifierWatcher runs in this session (null: could not ask). */
export function statusNotifierWatcherOwned(exec: Run = run): Promise<boolean | null> {
  return sessionNameHasOwner(WATCHER_NAME, exec);
}
