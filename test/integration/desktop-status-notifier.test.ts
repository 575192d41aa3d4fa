import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  sessionNameHasOwner,
  statusNotifierWatcherOwned,
  WATCHER_NAME,
} from "../../main/status-notifier.js";

/**
 * The tray check asks a real session bus: a private dbus-daemon started here (no desktop, so
 * no StatusNotifierWatcher, like stock GNOME), through dbus-send and through gdbus.
 */

const DAEMON = "/usr/bin/dbus-daemon";
const have = existsSync(DAEMON);
if (!have && !process.env.CI) console.warn("status notifier tests skipped: no dbus-daemon here");

let daemon: ChildProcess | null = null;
const saved = process.env.DBUS_SESSION_BUS_ADDRESS;

beforeAll(async () => {
  if (!have) return;
  const proc = spawn(DAEMON, ["--session", "--nofork", "--print-address=1"], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  daemon = proc;
  const address = await new Promise<string>((resolve, reject) => {
    let out = "";
    proc.stdout?.on("data", (b: Buffer) => {
      out += b.toString();
      if (out.includes("\n")) resolve(out.trim());
    });
    proc.on("exit", (code) => reject(new Error(`dbus-daemon ended with ${code}`)));
  });
  process.env.DBUS_SESSION_BUS_ADDRESS = address;
});

afterAll(() => {
  daemon?.kill();
  if (saved === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
  else process.env.DBUS_SESSION_BUS_ADDRESS = saved;
});

const tools = ["dbus-send", "gdbus"] as const;
const installed = (tool: string) =>
  spawnSync(tool, ["--help"], { stdio: "ignore" }).error === undefined;

describe.skipIf(!have && !process.env.CI)("asking the session bus for a tray host", () => {
  for (const tool of tools) {
    it.skipIf(!installed(tool))(`reads both answers of ${tool}`, async () => {
      // Only this tool: the other one is made to fail.
      const only = (file: string, args: string[]) =>
        file === tool ? runTool(file, args) : Promise.reject(new Error("not this one"));
      expect(await sessionNameHasOwner("org.freedesktop.DBus", only)).toBe(true);
      expect(await sessionNameHasOwner(WATCHER_NAME, only)).toBe(false);
    });
  }

  it("finds no StatusNotifierWatcher on a bus without a desktop", async () => {
    expect(await statusNotifierWatcherOwned()).toBe(false);
  });

  it("has no answer without a bus to ask", async () => {
    const address = process.env.DBUS_SESSION_BUS_ADDRESS;
    process.env.DBUS_SESSION_BUS_ADDRESS = "unix:path=/nonexistent/bus";
    try {
      expect(await statusNotifierWatcherOwned()).toBeNull();
    } finally {
      process.env.DBUS_SESSION_BUS_ADDRESS = address;
    }
  });
});

function runTool(file: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const proc = spawn(file, args, { stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    proc.stdout?.on("data", (b: Buffer) => (out += b.toString()));
    proc.on("error", reject);
    proc.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`${file}: ${code}`))));
  });
}
