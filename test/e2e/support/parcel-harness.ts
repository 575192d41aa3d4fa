import { resolve } from "node:path";
import { ManualClock } from "../../../server/clock.js";
import type { ParcelServiceOptions } from "../../../server/parcel/context.js";
import { startParcel, type Harness } from "../../helpers/parcel-harness.js";

export const ADMIN_USER = "admin";
export const ADMIN_PASSWORD = "gatehouse parcel e2e";

/** The wall clock behind the ManualClock interface the API harness expects. */
class WallClock extends ManualClock {
  override now(): number {
    return Date.now();
  }
}

export interface ParcelSite {
  /** `http://127.0.0.1:<port>`: the page is served at `/`. */
  url: string;
  /** The API harness (requests with its own cookie jar, the service, the data dir). */
  harness: Harness;
  adminUser: string;
  adminPassword: string;
  close(): Promise<void>;
}

/**
 * The real parcel service on 127.0.0.1 port 0 with a temp data dir, the built web UI
 * (renderer/dist, or GATEHOUSE_E2E_STATIC_DIR), the real clock and a known administrator.
 * Entries: `127.0.0.1` and `localhost` on the same port, so share links list two addresses.
 */
export async function startParcelSite(
  options: Partial<Omit<ParcelServiceOptions, "clock">> = {},
): Promise<ParcelSite> {
  const harness = await startParcel({
    clock: new WallClock(),
    adminUser: ADMIN_USER,
    adminPassword: ADMIN_PASSWORD,
    staticDir: resolve(process.env.GATEHOUSE_E2E_STATIC_DIR ?? "renderer/dist"),
    ...options,
  });
  return {
    url: harness.origin,
    harness,
    adminUser: ADMIN_USER,
    adminPassword: ADMIN_PASSWORD,
    close: () => harness.close(true),
  };
}
