import { DomainError } from "../../domain-errors.js";
import type { Actor, ParcelDomain } from "./ports.js";
import type { ParcelRow } from "../repos/parcels.js";
import type { NewSession } from "../repos/sessions.js";
import { admissionRefusal, readUsage } from "./admission.js";
import { DAY_S } from "../../contract/time-units.js";
import { openCode } from "./code-box.js";
import { issueCode } from "./share.js";

/** The parcel of an owner request; not found when it vanished between auth and read. */
export function ownedParcel(ctx: ParcelDomain, id: string): ParcelRow {
  const p = ctx.repos.parcels.byId(id);
  if (!p) throw new DomainError("not_found", "parcel.not_found", "No such parcel");
  return p;
}

/**
 * Admits a new upload session and stores it with its files. Usage is read and the session
 * reserved in one write transaction, so two concurrent sessions can never both take the last
 * free space. Refused (507) when the file budget, the data budget or the disk would not hold it.
 */
export function admitSession(ctx: ParcelDomain, session: NewSession): void {
  const { repos } = ctx;
  repos.transaction(() => {
    const usage = readUsage(repos.sessions, ctx.diskFree(), ctx.now());
    const refusal = admissionRefusal(
      usage,
      { bytes: session.reservedBytes, files: session.files.length },
      ctx.runtime(),
    );
    if (refusal) throw refusal;
    repos.sessions.create(session);
    if (session.inbox) repos.inbox.markInbox(session.id);
  }, "immediate");
}

/**
 * Publishes an upload session whose files are all uploaded and hands out its pickup code.
 * Only the first publish issues a code; a later one returns the parcel with `code: null`.
 * An inbox parcel's code is issued the same way, but the caller must not hand it to the sender.
 * The publish, its code and its audit record commit together.
 */
export function publishParcel(
  ctx: ParcelDomain,
  id: string,
  by: { from: string; actor: Actor; token: string | null },
): { parcel: ParcelRow; code: string | null } {
  const { repos } = ctx;
  return repos.transaction(() => {
    const p = ownedParcel(ctx, id);
    if (p.sent_at !== null) return { parcel: p, code: null };
    if (p.state !== "uploading")
      throw new DomainError(
        "conflict",
        "upload.session_ended",
        "This upload session has ended and cannot be published",
      );
    const pending = repos.parcels.files(id).filter((f) => f.state !== "ready");
    if (pending.length > 0)
      throw new DomainError(
        "conflict",
        "upload.not_ready",
        `${pending.length} file(s) are not uploaded yet`,
        { params: { count: pending.length } },
      );
    const now = ctx.now();
    repos.sessions.publish(id, now, now + p.days * DAY_S);
    // An inbox parcel's code goes to the administrator only: never sealed for its sender.
    const inbox = p.inbox === 1;
    const issued = issueCode(ctx, id, inbox ? null : by.token);
    ctx.audit(by.actor, "parcel.publish", `parcel:${id}`, by.from, inbox ? { inbox: true } : {});
    return { parcel: ownedParcel(ctx, id), code: issued };
  }, "immediate");
}

/**
 * A new pickup code for a published parcel (the old one and its pickup cookies stop working);
 * sealed for the owner when the request carried the manage token.
 */
export function newCode(
  ctx: ParcelDomain,
  id: string,
  token: string | null,
): { parcel: ParcelRow; code: string } {
  return ctx.repos.transaction(() => {
    const p = ownedParcel(ctx, id);
    if (p.inbox === 1)
      throw new DomainError(
        "conflict",
        "parcel.inbox_code",
        "A parcel sent to an inbox has no code its sender can see; the computer's owner holds it",
      );
    if (p.state !== "published")
      throw new DomainError(
        "conflict",
        "parcel.not_published",
        "A new code can only be issued for a published parcel",
      );
    const code = issueCode(ctx, id, token);
    return { parcel: ownedParcel(ctx, id), code };
  }, "immediate");
}

/**
 * The current pickup code of a published parcel, opened with its manage token: refused when
 * the parcel can no longer be picked up, or when its code was issued without the token (an
 * administrator's reissue, a new code asked with the visitor cookie alone).
 */
export function currentCode(
  ctx: ParcelDomain,
  id: string,
  token: string,
): { parcel: ParcelRow; code: string } {
  const p = ownedParcel(ctx, id);
  if (p.state !== "published")
    throw new DomainError(
      "conflict",
      "parcel.code_ended",
      "This parcel cannot be picked up now, so its code is not shown",
    );
  const box = ctx.repos.sessions.codeBox(id)?.box ?? null;
  const code = box === null ? null : openCode(box, token, id);
  if (code === null)
    throw new DomainError(
      "not_found",
      "parcel.code_not_kept",
      "This parcel's current code was issued without its manage token, so it cannot be shown again",
    );
  return { parcel: p, code };
}
