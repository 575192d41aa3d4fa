import type { z } from "zod";
import type { NodeSelectSchema } from "../../contract/proxy.js";
import { DomainError } from "../../domain-errors.js";
import type { CoreControl } from "../context.js";
import { coreUnavailable } from "../core/errors.js";
import type { SqlProxyStore } from "../store/proxy-store.js";
import { nodeLister, type NodeList } from "./node-list.js";

/** How long the core may take to say it is there before a latency test. */
const CORE_PROBE_MS = 2000;

/**
 * Latency tests go through the core: without one that answers, every node would come back
 * "failed", blaming the nodes. A stopped core is said as such, before any test runs.
 */
export async function coreAnswers(core: CoreControl): Promise<void> {
  try {
    await core.client.version(CORE_PROBE_MS);
  } catch (err) {
    if (!core.running())
      throw new DomainError(
        "unavailable",
        "node.test_needs_core",
        "Start the proxy core first: latency tests go through it, and it is not running",
        { cause: err },
      );
    throw coreUnavailable(err);
  }
}

/** The nodes of the enabled subscriptions, which one is chosen, and what a test measures. */
export class NodeChoice {
  /** The node list, made again only when the subscriptions or their snapshots changed. */
  readonly list: () => NodeList;

  constructor(
    private readonly store: SqlProxyStore,
    private readonly core: CoreControl,
    private readonly log: (line: string) => void,
  ) {
    this.list = nodeLister(store);
  }

  /** The node chosen by hand, or null when the choice is automatic. */
  chosen(): string | null {
    const settings = this.store.getSettings();
    return settings.selectionMode === "manual" ? settings.selectedNode : null;
  }

  /**
   * Saves the choice and points the core at it. A core that is not running gets it at its
   * next start; a running core that refuses it is said (the choice stays saved).
   */
  async select(choice: z.output<typeof NodeSelectSchema>): Promise<void> {
    const settings = this.store.getSettings();
    if (choice.mode === "manual") {
      if (!this.list().ids.has(choice.id))
        throw new DomainError(
          "not_found",
          "node.unavailable",
          "Unknown node, or its subscription is disabled",
        );
      this.store.saveSettings({ ...settings, selectionMode: "manual", selectedNode: choice.id });
    } else {
      this.store.saveSettings({ ...settings, selectionMode: "auto" });
    }
    try {
      await this.core.applySelection(this.store.coreInput());
    } catch (err) {
      if (this.core.running()) {
        const message = err instanceof Error ? err.message : String(err);
        throw new DomainError(
          "invalid",
          "node.select_refused",
          `The selection was saved but the core refused it: ${message}`,
          { params: { detail: message }, cause: err },
        );
      }
      this.log(`selection staged for the next core start (${String(err)})`);
    }
  }

  /**
   * Before a latency test of `ids`: each must be a node of the list and the core must answer.
   * Answers the address and the deadline of the test.
   */
  async testTarget(ids: string[]): Promise<{ testURL: string; testTimeoutMS: number }> {
    const known = this.list().ids;
    const unknown = ids.find((id) => !known.has(id));
    if (unknown !== undefined)
      throw new DomainError("not_found", "node.unknown", `Unknown node: ${unknown}`, {
        params: { node: unknown },
      });
    await coreAnswers(this.core);
    const { testURL, testTimeoutMS } = this.store.getSettings();
    return { testURL, testTimeoutMS };
  }
}
