import { fork } from "node:child_process";
import type { ForkFunction, HostChild } from "./host-child.js";

export interface NodeForkOptions {
  /** The Node executable (default: this process's). */
  execPath?: string;
  /** Node options of the child, e.g. `["--import", "tsx"]` to run TypeScript (default none). */
  execArgv?: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** The child's stdout and stderr: shared with this process (default), dropped, or handed to `onOutput`. */
  output?: "inherit" | "ignore" | ((text: string) => void);
}

/**
 * Runs the services as a Node child with an IPC channel: the development app (whose
 * better-sqlite3 was built for the system Node) and the tests.
 */
export function forkNode(options: NodeForkOptions = {}): ForkFunction {
  return (entry, args): HostChild => {
    const output = options.output ?? "inherit";
    const pipe = typeof output === "function";
    const child = fork(entry, [...args], {
      execPath: options.execPath ?? process.execPath,
      execArgv: options.execArgv ?? [],
      env: options.env ?? process.env,
      cwd: options.cwd,
      stdio: ["ignore", pipe ? "pipe" : output, pipe ? "pipe" : output, "ipc"],
    });
    if (pipe) {
      for (const stream of [child.stdout, child.stderr]) {
        stream?.on("data", (b: Buffer) => output(b.toString()));
        stream?.on("error", () => undefined);
      }
    }
    const exitListeners: Array<(code: number | null, signal: string | null) => void> = [];
    let ended = false;
    const end = (code: number | null, signal: string | null): void => {
      if (ended) return;
      ended = true;
      for (const l of exitListeners) l(code, signal);
    };
    child.on("exit", (code, signal) => end(code, signal));
    // A child that could not be started (no such executable) may never emit 'exit'.
    child.on("error", () => {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null)
        end(child.exitCode, child.signalCode);
    });
    return {
      get pid() {
        return child.pid;
      },
      postMessage(message) {
        // A channel that has just closed throws or emits 'error' (handled above); the exit
        // that follows tells the host.
        if (child.connected) child.send(message);
      },
      onMessage(listener) {
        child.on("message", (m) => listener(m));
      },
      onExit(listener) {
        exitListeners.push(listener);
      },
      kill() {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      },
    };
  };
}
