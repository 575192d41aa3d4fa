import { RateMeter } from "./rate.js";
import { sendFile } from "./resumable.js";
import type { Session, Upload } from "./send-types.js";
import type { PutHandle } from "./uploader.js";

/** The speed of all files together (the total line). */
export const totalMeter = new RateMeter();

export interface FileHooks {
  /** A change to this file's row. */
  patch(patch: Partial<Upload>): void;
  /** Bytes of every file so far, for the total speed. */
  totalLoaded(): number;
  setTotalRate(rate: number): void;
}

/**
 * Sends one file of the session (resumed from what the service stored) and reports its
 * progress, what the service confirmed and whether the connection holds, as row changes.
 */
export function runFile(session: Session, u: Upload, file: File, hooks: FileHooks): PutHandle {
  const meter = new RateMeter();
  let lastPaint = 0;
  return sendFile({
    parcelId: session.id,
    fileId: u.fileId,
    file,
    token: session.token,
    onProgress: (loaded) => {
      const now = performance.now();
      meter.add(loaded, now);
      // Progress events come every few milliseconds; four repaints a second are plenty.
      if (now - lastPaint < 250 && loaded < u.size) return;
      lastPaint = now;
      hooks.patch({ loaded, rate: meter.rate() });
      totalMeter.add(hooks.totalLoaded(), now);
      hooks.setTotalRate(totalMeter.rate());
    },
    // What the service stored is shown at once: the bar never claims less than that.
    onStored: (stored) => hooks.patch({ stored, loaded: stored }),
    onLink: (link) => {
      if (link === "ok") {
        hooks.patch({ link });
        return;
      }
      // No speed or time left while the connection is down.
      meter.reset();
      totalMeter.reset();
      hooks.patch({ link, rate: 0 });
      hooks.setTotalRate(0);
    },
  });
}
