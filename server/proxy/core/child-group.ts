import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";

/**
 * Every program the proxy service starts (the core's `-v` and `-t`, the supervised core,
 * systemctl) runs in a process group of its own, so it can be ended with everything it started:
 * a shell script's `sleep`, a helper the core forked. Ending is SIGTERM to the group, then
 * SIGKILL to the group after a short grace. Windows has no process groups; there only the
 * program itself is signalled.
 */

const POSIX = process.platform !== "win32";

/** Time a program gets between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 2000;

/** Spawns `bin` as the leader of a new process group (`detached` on POSIX, never a console). */
export function spawnInGroup(
  bin: string,
  args: string[],
  options: SpawnOptions = {},
): ChildProcess {
  return spawn(bin, args, { ...options, detached: POSIX, windowsHide: true });
}

/** Sends `signal` to the child's whole group (the child alone on Windows); false when none. */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): boolean {
  const pid = child.pid;
  if (pid === undefined) return false;
  try {
    if (POSIX) process.kill(-pid, signal);
    else child.kill(signal);
    return true;
  } catch {
    // ESRCH: the group is gone already.
    return false;
  }
}

/**
 * Ends a process group: SIGTERM, then SIGKILL when the child has not exited after `graceMs`.
 * Resolves once the child has exited, or (if even SIGKILL cannot end it) `graceMs` after the
 * SIGKILL, so a caller holding a lock always gets it back.
 */
export function endGroup(child: ChildProcess, graceMs = KILL_GRACE_MS): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    // The leader is gone; what it left in its group goes too.
    signalGroup(child, "SIGKILL");
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    let last: NodeJS.Timeout | undefined;
    const kill = setTimeout(() => {
      signalGroup(child, "SIGKILL");
      last = setTimeout(resolve, graceMs);
    }, graceMs);
    child.once("exit", () => {
      clearTimeout(kill);
      if (last) clearTimeout(last);
      signalGroup(child, "SIGKILL");
      resolve();
    });
    signalGroup(child, "SIGTERM");
  });
}

export interface RunOptions {
  /** Hard deadline: then the group is ended (SIGTERM, SIGKILL after the grace). */
  timeoutMs: number;
  graceMs?: number;
  /** Output kept of each stream; the rest is read and dropped (default 4 MiB). */
  maxOutputBytes?: number;
  cwd?: string;
}

export interface RunResult {
  /** Exit code, or null when a signal ended it or it never started. */
  code: number | null;
  stdout: string;
  stderr: string;
  /** The deadline ended it. */
  timedOut: boolean;
  /** It could not be started (ENOENT, EACCES...). */
  error?: Error;
}

/**
 * Runs a program to its end with a hard deadline, in a group of its own. Whatever it leaves
 * running in its group when it exits is killed too, so nothing outlives the call; and the
 * answer comes at the latest `timeoutMs` + two graces after the start, whatever the program
 * does with its signals.
 */
export function runBounded(bin: string, args: string[], opts: RunOptions): Promise<RunResult> {
  const max = opts.maxOutputBytes ?? 4 * 1024 * 1024;
  const grace = opts.graceMs ?? KILL_GRACE_MS;
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawnInGroup(bin, args, { cwd: opts.cwd, stdio: ["ignore", "pipe", "pipe"] });
    } catch (err) {
      resolve({ code: null, stdout: "", stderr: "", timedOut: false, error: err as Error });
      return;
    }
    const out = { stdout: [] as Buffer[], stderr: [] as Buffer[], size: { stdout: 0, stderr: 0 } };
    const keep = (which: "stdout" | "stderr") => (chunk: Buffer) => {
      const room = max - out.size[which];
      if (room <= 0) return;
      out[which].push(room < chunk.length ? chunk.subarray(0, room) : chunk);
      out.size[which] += Math.min(room, chunk.length);
    };
    child.stdout?.on("data", keep("stdout"));
    child.stderr?.on("data", keep("stderr"));
    let timedOut = false;
    let settled = false;
    const finish = (code: number | null, error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve({
        code,
        stdout: Buffer.concat(out.stdout).toString("utf8"),
        stderr: Buffer.concat(out.stderr).toString("utf8"),
        timedOut,
        error,
      });
    };
    const deadline = setTimeout(() => {
      timedOut = true;
      // Answers even when the group cannot be ended: the caller's lock must come back.
      void endGroup(child, grace).then(() => finish(child.exitCode));
    }, opts.timeoutMs);
    child.once("error", (err) => finish(null, err));
    child.once("exit", () => {
      // Children it left behind (a backgrounded sleep) end with it.
      signalGroup(child, "SIGKILL");
    });
    // After the exit and the end of its output (which its group could have held open).
    child.once("close", (code) => finish(code));
  });
}
