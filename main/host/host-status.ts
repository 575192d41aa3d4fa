import type { CoreStatus, ReadyInfo, StartErrorCode } from "../../server/desktop/protocol.js";

/** Why the host gave up: the services' own start error, or its own finding. */
export type FailureCode = StartErrorCode | "crashed" | "ready_timeout";

/**
 * The host's state as the window and the tray say it. `ready.info` holds the operator's
 * credentials on a first run (generated admin password, proxy setup token): keep them in
 * the keychain, never send this object to a page (send `ServiceHost.info` instead).
 */
export type HostStatus =
  | { state: "starting"; attempt: number }
  | { state: "ready"; info: ReadyInfo }
  | { state: "restarting"; attempt: number; delayMs: number; reason: string }
  | { state: "failed"; code: FailureCode; message: string }
  | { state: "stopped" };

/** What the window and tray show: no secrets, safe to hand to a page. */
export interface HostInfo {
  state: HostStatus["state"];
  dataDir: string;
  parcel: { url: string; httpsUrl: string | null; entries: string[]; adminUser: string } | null;
  proxy: { url: string } | null;
  core: CoreStatus | null;
  /** The sentence of the last failure or crash; null while things are fine. */
  error: string | null;
  errorCode: FailureCode | null;
}
