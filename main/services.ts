import { app, utilityProcess } from "electron";
import { fork, type ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import { join } from "node:path";
import type { ServiceInfo } from "../preload/contract.js";

/**
 * Runs the embedded services apart from the UI thread. Packaged builds use Electron's utility
 * process (native modules were rebuilt for Electron when packaging); a development checkout
 * uses the system Node, whose ABI matches the better-sqlite3 build `npm install` made.
 */
export class ServiceHost extends EventEmitter {
  info: ServiceInfo;
  private child: ChildProcess | Electron.UtilityProcess | null = null;

  constructor(
    private readonly entry: string,
    private readonly args: string[],
    dataDir: string,
  ) {
    super();
    this.info = { parcel: null, proxy: null, dataDir, error: null };
  }

  start(): void {
    const onMessage = (m: unknown): void => {
      const msg = m as {
        type: string;
        error?: string;
        parcel?: ServiceInfo["parcel"];
        proxy?: ServiceInfo["proxy"];
        dataDir?: string;
      };
      if (msg.type === "ready") {
        this.info = {
          parcel: msg.parcel ?? null,
          proxy: msg.proxy ?? null,
          dataDir: msg.dataDir ?? this.info.dataDir,
          error: null,
        };
      } else if (msg.type === "error") {
        this.info = { ...this.info, error: msg.error ?? "The services failed to start" };
      }
      this.emit("status", this.info);
    };
    const onExit = (code: number | null): void => {
      this.child = null;
      if (code !== 0) {
        this.info = {
          ...this.info,
          parcel: null,
          proxy: null,
          error: this.info.error ?? `The services stopped (exit code ${code})`,
        };
        this.emit("status", this.info);
      }
    };
    if (app.isPackaged) {
      const child = utilityProcess.fork(this.entry, this.args, {
        serviceName: "Gatehouse services",
        stdio: "inherit",
      });
      child.on("message", onMessage);
      child.on("exit", onExit);
      this.child = child;
    } else {
      const child = fork(this.entry, this.args, {
        execPath: process.env.GATEHOUSE_NODE ?? "node",
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      });
      child.on("message", onMessage);
      child.on("exit", onExit);
      this.child = child;
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        child.kill();
        resolve();
      }, 5000);
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      if ("postMessage" in child) {
        child.once("exit", done);
        child.postMessage("stop");
      } else {
        child.once("exit", done);
        child.send("stop");
      }
    });
  }
}

export function serviceEntry(): string {
  return join(app.getAppPath(), "dist", "main", "server", "desktop-entry.js");
}
