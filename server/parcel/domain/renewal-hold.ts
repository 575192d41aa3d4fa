import { DAY_S } from "../../contract/time-units.js";
import type { ParcelDomain } from "./ports.js";
import type { RenewalHold } from "../repos/parcels.js";

/**
 * The parcels the expiry sweep leaves alone past their expiry: those with a download in flight
 * that was taken while the parcel was live. That download's completion renews by
 * min(max(old, done) + renew_days, sent_at + renew_cap_days) (term mode likewise), and
 * max(old, done) is there for a body that completes after the old expiry: so the outcome
 * cannot depend on whether some other request ran the sweep while the body was on its way.
 * A body cut short renews nothing, and the parcel expires as soon as its download has ended
 * (`expireDue` in `settleDownload`, or the next sweep).
 *
 * What bounds it: the hold lasts only while a renewal could still give the parcel time, that is
 * before sent_at + renew_cap_days (`HELD_FOR_RENEWAL` in repos/parcels.ts checks it in the same
 * statement as the expiry), and only for parcels with `renew` on. A stalled download is also
 * cut after 5 minutes without a byte sent (`IDLE_MS` in http/transfer.ts), but a reader that
 * trickles a byte now and then is not: the cap is what keeps any download, however slow, from
 * holding a parcel past sent_at + renew_cap_days. The hold is in memory only: after a restart
 * nothing is in flight and the sweep expires what is due.
 */
export function renewalHold(ctx: ParcelDomain): RenewalHold {
  return {
    ids: [...ctx.activity.downloading.keys()],
    capSeconds: ctx.policy().renew_cap_days * DAY_S,
  };
}

/** Counts a download of the parcel as running (+1) or ended (-1). */
export function countDownload(ctx: ParcelDomain, parcelId: string, delta: number): void {
  const n = (ctx.activity.downloading.get(parcelId) ?? 0) + delta;
  if (n > 0) ctx.activity.downloading.set(parcelId, n);
  else ctx.activity.downloading.delete(parcelId);
}

/** Published parcels past their expiry become `expired`, except those still held. */
export function expireDue(ctx: ParcelDomain): void {
  ctx.repos.sessions.expirePublished(ctx.now(), renewalHold(ctx));
}
