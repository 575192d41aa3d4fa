import { MINUTE_S } from "../../contract/time-units.js";
import { DomainError } from "../../domain-errors.js";
import { hashPickupPassword } from "../../password-hash.js";
import { LOCAL_SOURCE, type Actor, type ParcelDomain } from "./ports.js";
import type { AdminParcelView, ParcelRow } from "../repos/parcels.js";
import { adminParcelView } from "./parcel-views.js";
import type { InboxRow } from "../repos/inbox.js";
import { openCode, sealCode } from "./code-box.js";
import { formatCode, generateCode } from "./codes.js";
import { codeHash, inboxKey } from "./share.js";

/**
 * The inbox: while it is open, a device that knows its code (and password, when set) may send
 * files that land with the operator. Its state lives in the database (the code as a keyed
 * hash and sealed for the administrator, the password hashed at the pickup cost, the closing
 * time), so it survives a restart; closing it ends the code and every session at once.
 */

/** How many deliveries `GET /admin/inbox` lists (the newest). */
export const INBOX_ITEMS_LIMIT = 200;

const CODE_TRIES = 50;
/** What the inbox's own sealed code is bound to (a parcel's is bound to its id). */
const INBOX_BOX_ID = "inbox";

export type InboxState =
  | { open: true; code: string; closesAt: number; hasPassword: boolean; gen: number }
  | { open: false };

/** The stored row while the inbox is open and its time has not run out; else null. */
export function liveInbox(ctx: ParcelDomain): InboxRow | null {
  const row = ctx.repos.inbox.get();
  if (row.code_hash === null || row.closes_at === null || row.closes_at <= ctx.now()) return null;
  return row;
}

/** The inbox as the administrator sees it (its code in display form). */
export function inboxState(ctx: ParcelDomain): InboxState {
  const row = liveInbox(ctx);
  const plain = row?.code_box ? openCode(row.code_box, inboxKey(ctx), INBOX_BOX_ID) : null;
  if (!row || plain === null || row.closes_at === null) return { open: false };
  return {
    open: true,
    code: plain,
    closesAt: row.closes_at,
    hasPassword: row.password_hash !== null,
    gen: row.code_gen,
  };
}

/** Who opened or closed the inbox, for the audit log. */
export interface InboxActor {
  /** The client's address (or `LOCAL_SOURCE` for the service itself). */
  source: string;
  actor: Actor;
}

/**
 * Opens the inbox, or reopens it with a new code (the old code and its sessions end): open for
 * `minutes`, with a password senders must give when one is set. The code has the policy's
 * length, is no live parcel's code, and differs from the code before.
 */
export async function openInbox(
  ctx: ParcelDomain,
  input: { minutes: number; password: string | null },
  by: InboxActor,
): Promise<InboxState & { open: true }> {
  // Hashed before the transaction: scrypt must not hold the write lock.
  const passwordHash = input.password ? await hashPickupPassword(input.password) : null;
  const { repos } = ctx;
  const row = repos.transaction(() => {
    const before = repos.inbox.get().code_hash;
    const length = ctx.policy().code_length;
    for (let i = 0; i < CODE_TRIES; i++) {
      const code = generateCode(length);
      const hash = codeHash(ctx, code);
      if (hash === before || repos.sessions.codeTaken(hash)) continue;
      const now = ctx.now();
      const box = sealCode(inboxKey(ctx), INBOX_BOX_ID, code);
      return repos.inbox.open({ hash, box }, passwordHash, now, now + input.minutes * MINUTE_S);
    }
    throw new DomainError(
      "limit",
      "storage.no_code",
      "No free pickup code is available; try again later",
    );
  }, "immediate");
  const state = inboxState(ctx);
  if (!state.open) throw new Error("the inbox did not open");
  ctx.audit(by.actor, "inbox.open", "system", by.source, {
    minutes: input.minutes,
    has_password: passwordHash !== null,
    closes_at: row.closes_at,
  });
  return state;
}

/** Closes the inbox now; false when it was not open. */
export function closeInbox(ctx: ParcelDomain, by: InboxActor, reason = "closed"): boolean {
  const closed = ctx.repos.inbox.close();
  if (closed === null) return false;
  ctx.audit(by.actor, "inbox.close", "system", by.source, { reason });
  return true;
}

/**
 * An inbox whose time ran out is closed (once, with its audit record); runs before every API
 * request with the other sweeps, one read of a one-row table.
 */
export function sweepInbox(ctx: ParcelDomain): void {
  const row = ctx.repos.inbox.get();
  if (row.code_hash === null || row.closes_at === null || row.closes_at > ctx.now()) return;
  closeInbox(ctx, { source: LOCAL_SOURCE, actor: { kind: "anonymous" } }, "time");
}

/** One delivery as `GET /admin/inbox` lists it. */
export type InboxDelivery = AdminParcelView & { from: string; received_at: number; code: string };

/** The deliveries an operator can still fetch, newest first, each with its pickup code. */
export function inboxDeliveries(ctx: ParcelDomain): InboxDelivery[] {
  const rows = ctx.repos.inbox.delivered(INBOX_ITEMS_LIMIT);
  const files = ctx.repos.parcels.filesOf(rows.map((p) => p.id));
  return rows.flatMap((p: ParcelRow) => {
    const code = p.inbox_box === null ? null : openCode(p.inbox_box, inboxKey(ctx), p.id);
    if (code === null || p.sent_at === null) return [];
    return [
      {
        ...adminParcelView(p, files.get(p.id) ?? []),
        from: p.client_ip,
        received_at: p.sent_at,
        code: formatCode(code),
      },
    ];
  });
}
