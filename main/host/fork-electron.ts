import { app, utilityProcess } from "electron";
import { join } from "node:path";
import { forkNode } from "./fork-node.js";
import type { ForkFunction, HostChild } from "./host-child.js";

/**
 * Electron's side of the service host; no decisions live here. A utility process sends on
 * `process.parentPort` and is heard on `child.on("message")`; it hears `child.postMessage`.
 */
export function forkUtility(): ForkFunction {
  return (entry, args): HostChild => {
    const child = utilityProcess.fork(entry, [...args], {
      serviceName: "Gatehouse services",
      stdio: "inherit",
    });
    // Reported with the exit that follows; a listener keeps it from going unheard.
    child.on("error", () => undefined);
    return {
      get pid() {
        return child.pid;
      },
      postMessage: (message) => child.postMessage(message),
      onMessage: (listener) => void child.on("message", (m: unknown) => listener(m)),
      onExit: (listener) => void child.on("exit", (code) => listener(code, null)),
      kill() {
        // `child.kill()` is a SIGTERM the services answer with a clean stop; this is the
        // deadline's kill, which must not wait for them.
        const pid = child.pid;
        try {
          if (pid !== undefined) process.kill(pid, "SIGKILL");
          else child.kill();
        } catch {
          child.kill();
        }
      },
    };
  };
}

/**
 * A packaged app uses Electron's utility process (native modules were rebuilt for Electron
 * when packaging); a development checkout uses the system Node, whose ABI matches the
 * better-sqlite3 build `npm install` made.
 */
export function forkForApp(): ForkFunction {
  return app.isPackaged
    ? forkUtility()
    : forkNode({ execPath: process.env.GATEHOUSE_NODE ?? "node" });
}

/** The compiled services entry inside the app. */
export function serviceEntry(): string {
  return join(app.getAppPath(), "dist", "main", "server", "desktop-entry.js");
}
