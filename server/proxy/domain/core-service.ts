import type { z } from "zod";
import type { ServiceActionSchema } from "../../contract/proxy.js";
import { DomainError } from "../../domain-errors.js";
import type { CoreControl } from "../context.js";
import { errorMessage } from "../core/errors.js";
import type { SqlProxyStore } from "../store/proxy-store.js";

/**
 * Kept across restarts: whether the core ran when the service last stopped, or when it was
 * last started or stopped on request (a crash skips the stop).
 */
export const CORE_WAS_RUNNING = "core-was-running";

/** The operator's start, stop and restart of the core (`POST /system/service`). */
export class CoreService {
  constructor(
    /** What it needs of the repositories: the state to start with and the remembered flag. */
    private readonly store: Pick<SqlProxyStore, "coreInput" | "setFlag">,
    private readonly core: CoreControl,
  ) {}

  /**
   * Starts, stops or restarts the core with the stored state, and remembers whether it should
   * run (read at the next start, also when this run ends without a stop: a crash). A failure
   * the core layer said in its own words is passed on; any other is said as the action's.
   */
  async control(action: z.output<typeof ServiceActionSchema>["action"]): Promise<void> {
    try {
      if (action === "stop") await this.core.stop();
      else if (action === "start") await this.core.start(this.store.coreInput());
      else await this.core.restart(this.store.coreInput());
      this.store.setFlag(CORE_WAS_RUNNING, action !== "stop");
    } catch (cause) {
      if (cause instanceof DomainError && cause.kind === "invalid") throw cause;
      throw new DomainError(
        "invalid",
        `core.${action}_failed`,
        `The core could not ${action}: ${errorMessage(cause)}`,
        { params: { detail: errorMessage(cause) }, cause },
      );
    }
  }
}
