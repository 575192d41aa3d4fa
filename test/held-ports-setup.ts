import { appendFileSync } from "node:fs";
import net from "node:net";
import { expect } from "vitest";
import { USUAL_PORTS } from "./helpers/held-ports.js";

/**
 * In every vitest worker: notes which test dials one of the held ports, so the run's final
 * message names the test instead of only the port (the holder in the main process sees a
 * connection, not who made it). Connections from child processes a test spawns are not seen
 * here; the holder still counts them.
 */
const log = process.env.GATEHOUSE_HELD_PORTS_LOG;
// Once per worker: where the files of a worker share their modules, this file runs again
// before each of them.
const PATCHED = Symbol.for("gatehouse.held-ports-setup");
const marks = globalThis as { [PATCHED]?: true };
if (log && !marks[PATCHED]) {
  marks[PATCHED] = true;
  const held = new Set(USUAL_PORTS);
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function patched(this: net.Socket, ...args: unknown[]) {
    // `net.connect` hands its arguments on already normalised, as one array.
    const given = Array.isArray(args[0]) ? (args[0] as unknown[]) : args;
    const first = given[0] as { port?: unknown } | number | string | undefined;
    const port = Number(typeof first === "object" && first !== null ? first.port : first);
    if (held.has(port)) {
      const test = expect.getState().currentTestName ?? "(outside a test)";
      const file = expect.getState().testPath ?? "(unknown file)";
      appendFileSync(log, `${port}: ${file.replace(process.cwd() + "/", "")} > ${test}\n`);
    }
    return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof connect;
}
