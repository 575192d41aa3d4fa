import { holdingWanted, holdPorts, reachedProblem } from "./helpers/held-ports.js";

/**
 * Global setup of both test runners (vitest and Playwright): holds the usual proxy and
 * Gatehouse ports on loopback for the whole run, and fails the run when any test reached one.
 * Every test must pick free ports; this makes a fixed one fail on every machine.
 */
export default async function holdUsualPorts(): Promise<() => Promise<void>> {
  if (!holdingWanted()) return async () => undefined;
  const ports = await holdPorts();
  return async () => {
    const problem = reachedProblem(ports.reached());
    await ports.close();
    if (problem) throw new Error(problem);
  };
}
