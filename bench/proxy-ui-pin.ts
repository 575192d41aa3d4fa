import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Where the connections-table benchmark runs its parts, with `--pin`. People open the console
 * on another device than the gateway that runs the service and the core; pinned, the service
 * and the (simulated) core run on the first processor and the browser on the others
 * (`taskset`), so the page's frames are the page's alone. By default everything shares every
 * processor, which is harsher on the page.
 */

export interface Placement {
  /** Processors of the service and the core ("0"). */
  service: string;
  /** Processors of the browser ("1", "1-3"). */
  browser: string;
}

/** The split of this machine, or null where it has one processor or no `taskset`. */
export function placement(): Placement | null {
  const n = cpus().length;
  if (n < 2 || !existsSync("/usr/bin/taskset")) return null;
  return { service: "0", browser: n === 2 ? "1" : `1-${n - 1}` };
}

/** Pins every thread of this process (the service runs in it; the core it starts inherits). */
export function pinSelf(cpuList: string): () => void {
  const before = /: (\S+)\s*$/.exec(
    execFileSync("taskset", ["-c", "-p", String(process.pid)], { encoding: "utf8" }),
  )?.[1];
  execFileSync("taskset", ["-a", "-c", "-p", cpuList, String(process.pid)], { stdio: "ignore" });
  return () => {
    if (before)
      execFileSync("taskset", ["-a", "-c", "-p", before, String(process.pid)], { stdio: "ignore" });
  };
}

/** An executable that starts `chromium` pinned to `cpuList` (for the browser's launcher). */
export function pinnedBrowser(chromium: string, cpuList: string): string {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-bench-browser-"));
  const path = join(dir, "chromium");
  writeFileSync(path, `#!/bin/sh\nexec taskset -c ${cpuList} "${chromium}" "$@"\n`, {
    mode: 0o755,
  });
  return path;
}
