import type { HostMessage } from "../../server/desktop/protocol.js";

/**
 * The process running the services, as the service host sees it. An Electron utility process
 * (packaged app) and a Node child (development, tests) both fit behind it, so the host's
 * decisions are tested in Node against the real services.
 */
export interface HostChild {
  /** Undefined until the process exists (and when it could not be started). */
  readonly pid: number | undefined;
  postMessage(message: HostMessage): void;
  /** Every message the process sends, unchecked (the host checks it). */
  onMessage(listener: (message: unknown) => void): void;
  /** Called once when the process has ended, or could not be started at all. */
  onExit(listener: (code: number | null, signal: string | null) => void): void;
  /** Ends the process at once, without its shutdown code (SIGKILL where there is one). */
  kill(): void;
}

/** Starts `entry` (the services' entry module) with these command-line arguments. */
export type ForkFunction = (entry: string, args: readonly string[]) => HostChild;
