import type { Request, Router } from "express";
import {
  INBOX_DEFAULT_MINUTES,
  InboxOpenSchema,
  InboxResolveSchema,
  type InboxClosed,
  type InboxOpened,
  type InboxView,
} from "../../contract/parcel-inbox.js";
import { optionalObject, parseOr400 } from "../../http/validate.js";
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
import { jsonBody } from "../http/guards.js";
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
  r.post("/inbox/resolve", jsonBody, async (req, res) => {
    const input = parseOr400(InboxResolveSchema, req.body);
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
    res.json(grant);
  });
  return r;
}

/** `POST|GET|DELETE /admin/inbox`: the administrator opens, reads and closes the inbox. */
export function adminInboxRouter(ctx: ParcelContext): Router {
  const r = ctx.routes.router("/admin");

  r.post("/inbox", jsonBody, async (req, res) => {
    const input = optionalObject(InboxOpenSchema, req.body);
    const actor = res.locals.admin as Actor;
    const state = await openInbox(
      ctx,
      { minutes: input.minutes ?? INBOX_DEFAULT_MINUTES, password: input.password || null },
      { from: req, actor },
    );
    res.json(openedView(ctx, req, state));
  });

  r.get("/inbox", (req, res) => {
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
    res.json(view);
  });

  r.delete("/inbox", (req, res) => {
    closeInbox(ctx, { from: req, actor: res.locals.admin as Actor });
    const closed: InboxClosed = { open: false };
    res.json(closed);
  });

  return r;
}
