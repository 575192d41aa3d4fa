import { join } from "node:path";
import type { ProxyContext } from "../context.js";

/** The core's home dir, where its geodata lives. */
export function coreHomeDir(deps: ProxyContext): string {
  return (deps.core as { homeDir?: string }).homeDir ?? join(deps.dir, "core");
}
