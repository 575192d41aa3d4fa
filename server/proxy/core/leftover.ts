import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeAtomic } from "./files.js";

/** The running core's process id, kept in its home dir so a later run can find it. */
const PID_FILE = "core.pid";

export function recordCorePid(homeDir: string, pid: number): void {
  writeAtomic(join(homeDir, PID_FILE), `${pid}\n`);
}

function readPid(homeDir: string): number | null {
  try {
    const pid = Number(readFileSync(join(homeDir, PID_FILE), "utf8").trim());
    return Number.isSafeInteger(pid) && pid > 1 ? pid : null;
  } catch {
    return null;
  }
}

/** Removes the pid file when it still names `pid` (a newer run may have replaced it). */
export function forgetCorePid(homeDir: string, pid: number | undefined): void {
  if (pid !== undefined && readPid(homeDir) === pid)
    rmSync(join(homeDir, PID_FILE), { force: true });
}

/** Whether a process with this pid exists (one of another user counts: EPERM). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Whether `pid` runs a core of this home dir. Where the command line can be read (Linux), it
 * must name the home dir; elsewhere the pid file is trusted, since the caller has already
 * seen a controller that knows this home dir's secret.
 */
function runsHere(pid: number, homeDir: string): boolean {
  const file = `/proc/${pid}/cmdline`;
  if (!existsSync(file)) return existsSync("/proc/self") ? false : true;
  try {
    return readFileSync(file, "utf8").split("\0").includes(homeDir);
  } catch {
    return false;
  }
}

/**
 * Signals the core's process group (it leads one, see child-group.ts), with whatever it
 * started; a core an older version started without a group of its own gets the signal alone.
 */
function signalLeftover(pid: number, signal: NodeJS.Signals): void {
  if (process.platform !== "win32") {
    try {
      process.kill(-pid, signal);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ESRCH") throw err;
    }
  }
  if (processAlive(pid)) process.kill(pid, signal);
}

/**
 * Stops a core that an earlier run of this service left running (it outlived a crash of the
 * service and still holds the controller port). True when one was found and stopped.
 */
export async function stopLeftoverCore(homeDir: string, waitMs = 5000): Promise<boolean> {
  const pid = readPid(homeDir);
  if (pid === null || pid === process.pid || !processAlive(pid) || !runsHere(pid, homeDir))
    return false;
  try {
    signalLeftover(pid, "SIGTERM");
    const end = Date.now() + waitMs;
    while (processAlive(pid) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    signalLeftover(pid, "SIGKILL");
  } catch {
    return false;
  }
  forgetCorePid(homeDir, pid);
  return true;
}
