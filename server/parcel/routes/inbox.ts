import type { Request, Router } from "express";
import {
  INBOX_DEFAULT_MINUTES,
  type InboxClosed,
  type InboxOpened,
  type InboxView,
} from "../../contract/parcel-inbox.js";
import type { PARCEL_API } from "../../contract/parcel.js";
import type { JsonHandler } from "../../http/route-input.js";
import type { Actor, ParcelContext } from "../context.js";
import { formatCode } from "../domain/codes.js";
import {
  closeInbox,
  inboxDeliveries,
  inboxState,
  openInbox,
  type InboxState,
} from "../domain/inbox.js";
import { INBOX_SESSION_TTL, resolveInbox } from "../domain/inbox-session.js";
import {
  INBOX_COOKIE,
  PICKUP_COOKIE,
  pickupActor,
  readCookie,
  setCookie,
  clientIp,
} from "../http/identity.js";
import { noteLastingRefusal } from "../http/lasting-refusals.js";

/** Where a device opens the inbox: `<entry>/#/inbox/<code>`, on every entry address. */
function openedView(
  ctx: ParcelContext,
  req: Request,
  state: InboxState & { open: true },
): InboxOpened {
  const suffix = `/#/inbox/${state.code}`;
  return {
    open: true,
    code: formatCode(state.code),
    url: `${ctx.entryFor(req).origin}${suffix}`,
    urls: ctx.entries.list.map((e) => ({ label: e.label, url: `${e.origin}${suffix}` })),
    closes_at: state.closesAt,
    has_password: state.hasPassword,
  };
}

/** `POST /inbox/resolve`: a sender opens the inbox by its code (and password). */
export function inboxRouter(ctx: ParcelContext): Router {
  const r = ctx.routes.router();
  const resolve: JsonHandler<(typeof PARCEL_API)["POST /inbox/resolve"]> = async (
    { body: input },
    req,
    res,
  ) => {
    const ip = clientIp(req);
    const caller = {
      ip,
      actor: pickupActor(ctx, req),
      inboxCookie: readCookie(ctx, req, INBOX_COOKIE),
      pickupCookie: readCookie(ctx, req, PICKUP_COOKIE),
    };
    const { grant, session } = await resolveInbox(ctx, caller, input).catch((err: unknown) => {
      noteLastingRefusal(ctx, res, ip, err);
      throw err;
    });
    setCookie(ctx, req, res, INBOX_COOKIE, session, INBOX_SESSION_TTL);
    return grant;
  };
  r.endpoint("POST /inbox/resolve", resolve, { body: "as-is" });
  return r;
}

/** `POST|GET|DELETE /admin/inbox`: the administrator opens, reads and closes the inbox. */
export function adminInboxRouter(ctx: ParcelContext): Router {
  const r = ctx.routes.router("/admin");

  const open: JsonHandler<(typeof PARCEL_API)["POST /admin/inbox"]> = async (
    { body: input },
    req,
    res,
  ) => {
    const actor = res.locals.admin as Actor;
    const state = await openInbox(
      ctx,
      { minutes: input.minutes ?? INBOX_DEFAULT_MINUTES, password: input.password || null },
      { source: clientIp(req), actor },
    );
    return openedView(ctx, req, state);
  };
  r.endpoint("POST /admin/inbox", open, { body: "optional" });

  r.endpoint("GET /admin/inbox", (_input, req) => {
    const state = inboxState(ctx);
    const items = inboxDeliveries(ctx);
    const view: InboxView = state.open
      ? { ...openedView(ctx, req, state), items }
      : {
          open: false,
          code: null,
          url: null,
          urls: null,
          closes_at: null,
          has_password: null,
          items,
        };
    return view;
  });

  r.endpoint("DELETE /admin/inbox", (_input, req, res) => {
    closeInbox(ctx, { source: clientIp(req), actor: res.locals.admin as Actor });
    const closed: InboxClosed = { open: false };
    return closed;
  });

  return r;
}
