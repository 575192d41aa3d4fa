import { readFileSync } from "node:fs";

/**
 * Whether process `pid` no longer runs: gone from the process table, or a zombie (dead, waiting
 * for a parent to collect its exit status; an init that never does leaves it listed).
 */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

/** Waits until every pid is gone; throws naming the ones still running after `ms`. */
export async function untilGone(pids: number[], ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    const left = pids.filter((pid) => !processGone(pid));
    if (left.length === 0) return;
    if (Date.now() > end) throw new Error(`still running: ${left.join(", ")}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Kills what a failed test may have left running (ignores the ones already gone). */
export function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}
