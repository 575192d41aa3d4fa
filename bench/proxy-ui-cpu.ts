import { readFileSync, readdirSync } from "node:fs";
import type { CDPSession, Page } from "@playwright/test";

/**
 * Where the processor's time went during a phase of the connections-table benchmark: the
 * whole machine (from /proc/stat), the page's main thread (Chromium's own count of its task
 * time) and the page's workers (their threads' CPU time from /proc). A long frame while the
 * machine is saturated and the page's thread idle is the machine's, not the page's.
 */

export interface CpuFigures {
  /** Share of all processors busy, in %. */
  machine: number;
  /** Time the page's main thread spent in tasks, in % of one processor. */
  mainThread: number;
  /** CPU time of the page's dedicated workers, in % of one processor. */
  workers: number;
}

/** Jiffies of all processors: busy and total (Linux /proc/stat). */
function machineTicks(): { busy: number; total: number } {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0];
  const n = line.trim().split(/\s+/).slice(1).map(Number);
  const total = n.reduce((a, b) => a + b, 0);
  const idle = (n[3] ?? 0) + (n[4] ?? 0);
  return { busy: total - idle, total };
}

/** CPU jiffies of every thread named `DedicatedWorker` (Chromium's web workers). */
function workerTicks(): number {
  let sum = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tasks) {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
        const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
        if (!name.startsWith("DedicatedWorker")) continue;
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        // utime and stime: fields 14 and 15 of the line, 12 and 13 after the name.
        sum += Number(fields[11]) + Number(fields[12]);
      } catch {
        // the thread ended meanwhile
      }
    }
  }
  return sum;
}

async function taskSeconds(cdp: CDPSession): Promise<number> {
  const { metrics } = await cdp.send("Performance.getMetrics");
  return metrics.find((m) => m.name === "TaskDuration")?.value ?? 0;
}

/** Starts counting; the function it answers stops and answers the figures. */
export async function cpuMeter(page: Page): Promise<() => Promise<CpuFigures>> {
  // A session of its own each time: a navigation may have moved the page to a new process.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable");
  const t0 = performance.now();
  const m0 = machineTicks();
  const w0 = workerTicks();
  const task0 = await taskSeconds(cdp);
  return async () => {
    const task1 = await taskSeconds(cdp);
    await cdp.detach();
    const seconds = (performance.now() - t0) / 1000;
    const m1 = machineTicks();
    const hz = 100;
    return {
      machine: (100 * (m1.busy - m0.busy)) / Math.max(1, m1.total - m0.total),
      mainThread: (100 * (task1 - task0)) / seconds,
      workers: (100 * (workerTicks() - w0)) / hz / seconds,
    };
  };
}
