import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { holdingWanted, holdPorts, reachedProblem } from "./helpers/held-ports.js";

/**
 * Global setup of both test runners (vitest and Playwright): holds the usual proxy and
 * Gatehouse ports on loopback for the whole run, and fails the run when any test reached one.
 * Every test must pick free ports; this makes a fixed one fail on every machine.
 */
export default async function holdUsualPorts(): Promise<() => Promise<void>> {
  if (!holdingWanted()) return async () => undefined;
  const ports = await holdPorts();
  // Where the vitest workers note who dialled a held port (test/held-ports-setup.ts).
  const dir = mkdtempSync(join(tmpdir(), "gh-held-ports-"));
  const log = join(dir, "dialled.txt");
  process.env.GATEHOUSE_HELD_PORTS_LOG = log;
  return async () => {
    const problem = reachedProblem(ports.reached());
    await ports.close();
    const who = existsSync(log) ? [...new Set(readFileSync(log, "utf8").split("\n"))] : [];
    rmSync(dir, { recursive: true, force: true });
    if (problem) {
      const named = who.filter(Boolean);
      const tail = named.length
        ? `\nDialled by:\n  ${named.join("\n  ")}`
        : "\n(Not dialled from a test worker: look at the processes the tests spawn.)";
      throw new Error(problem + tail);
    }
  };
}
