import { DomainError } from "../../domain-errors.js";
import { lastLines } from "./check.js";
import { CoreApiError, errorMessage } from "./errors.js";
import type { MihomoClient } from "./mihomo-client.js";
import { portInUseError, saysControllerPortTaken } from "./port-check.js";
import type { Supervisor } from "./supervisor.js";

const READY_POLL_MS = 100;

export interface ReadyWait {
  client: Pick<MihomoClient, "version">;
  supervisor: Supervisor;
  /** The controller port, named when another program holds it. */
  port: number;
  timeoutMs: number;
}

/**
 * Waits until a (re)started core answers on its controller. Throws, by code: the port is
 * another program's (`PORT_IN_USE`), the core stopped right after starting
 * (`core.exited_at_start`) or did not answer in time (`core.timeout`), with the core's own
 * last lines apart as `output`.
 */
export async function waitCoreReady(d: ReadyWait): Promise<void> {
  const { port, timeoutMs: waitMs } = d;
  const deadline = Date.now() + waitMs;
  let last: unknown = null;
  let exited = false;
  for (;;) {
    try {
      await d.client.version(1000);
      return;
    } catch (err) {
      last = err;
      // Another program answers on the port and does not know our secret.
      if (err instanceof CoreApiError && err.status === 401) throw portInUseError(port, err);
      if (err instanceof CoreApiError) break; // answering, but refusing us
    }
    // The core says its controller could not listen: someone holds the port.
    if (saysControllerPortTaken(d.supervisor.runOutput())) throw portInUseError(port);
    if (d.supervisor.kind === "process" && !(await d.supervisor.active())) {
      exited = true;
      break;
    }
    if (Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, READY_POLL_MS));
  }
  // What the core said on its way down: the reader gets a sentence by code, and its own
  // words apart (`output`), since they are the core's, in English.
  const run = d.supervisor.runOutput();
  const output = lastLines(run.length > 0 ? run : d.supervisor.recentOutput(), 6);
  const tail = output ? `\n${output}` : "";
  if (exited) {
    throw new DomainError(
      "invalid",
      "core.exited_at_start",
      `The proxy core stopped right after starting${tail}`,
      { extra: { output }, cause: last },
    );
  }
  if (!(last instanceof CoreApiError)) {
    throw new DomainError(
      "invalid",
      "core.timeout",
      `The proxy core did not answer within ${Math.ceil(waitMs / 1000)} s of starting${tail}`,
      { extra: { output }, cause: last },
    );
  }
  throw new Error(`The proxy core did not come up: ${errorMessage(last)}${tail}`);
}
