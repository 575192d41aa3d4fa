import type { CoreControl } from "../proxy/context.js";
import { actualNodeOf } from "../proxy/domain/core-names.js";
import { parseNodeId } from "../proxy/types.js";
import type { CoreStatus } from "./protocol.js";

/**
 * The core as the tray shows it: installed, answering, and the node traffic goes through
 * (following the selector through the automatic group). Two short controller calls.
 */
export async function readCoreStatus(core: CoreControl, timeoutMs: number): Promise<CoreStatus> {
  const installed = core.installed;
  try {
    await core.client.version(timeoutMs);
  } catch {
    return { installed, online: false, node: null };
  }
  let node: string | null = null;
  try {
    const id = actualNodeOf(await core.client.proxies(timeoutMs));
    node = id ? (parseNodeId(id)?.name ?? id) : null;
  } catch {
    // Online but the groups did not answer in time: the node is unknown this round.
  }
  return { installed, online: true, node };
}
