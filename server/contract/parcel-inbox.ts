import { z } from "zod";
import { INBOX_MAX_MINUTES } from "./inbox-limits.js";
import { inboxGrantShape } from "./parcel-public.js";
import { AdminParcelViewSchema, ParcelViewSchema, ShareUrlSchema } from "./parcel-views.js";

/**
 * The inbox: the operator opens it, a LAN device opens it by its code and sends files, which
 * land with the operator (their pickup codes are shown only to the administrator).
 */

export { INBOX_DEFAULT_MINUTES, INBOX_MAX_MINUTES } from "./inbox-limits.js";

/** `POST /admin/inbox`: how long it stays open, and a password senders must type (or none). */
export const InboxOpenSchema = z.object({
  minutes: z.number().int().min(1).max(INBOX_MAX_MINUTES).optional(),
  password: z.string().max(1024).nullish(),
});
export type InboxOpenInput = z.input<typeof InboxOpenSchema>;

const time = z.number().int();

/** The open inbox: its code, where a device opens it, and until when. */
export const InboxOpenedSchema = z
  .object({
    open: z.literal(true),
    code: z.string(),
    url: z.string(),
    urls: z.array(ShareUrlSchema),
    closes_at: time,
    has_password: z.boolean(),
  })
  .strict();
export type InboxOpened = z.infer<typeof InboxOpenedSchema>;

/** The same members as open, each null, when the inbox is closed. */
export const InboxClosedStateSchema = z
  .object({
    open: z.literal(false),
    code: z.null(),
    url: z.null(),
    urls: z.null(),
    closes_at: z.null(),
    has_password: z.null(),
  })
  .strict();

/** One delivery: the parcel as the administrator sees it, who sent it, when, and its code. */
export const InboxItemSchema = AdminParcelViewSchema.extend({
  /** The sender's address. */
  from: z.string(),
  received_at: time,
  /** The parcel's pickup code (grouped), for the operator's own devices. */
  code: z.string(),
}).strict();
export type InboxItem = z.infer<typeof InboxItemSchema>;

const items = { items: z.array(InboxItemSchema) };

/** `GET /admin/inbox`: the inbox and its deliveries, newest first. */
export const InboxViewSchema = z.union([
  InboxOpenedSchema.extend(items).strict(),
  InboxClosedStateSchema.extend(items).strict(),
]);
export type InboxView = z.infer<typeof InboxViewSchema>;

/** `DELETE /admin/inbox`. */
export const InboxClosedSchema = z.object({ open: z.literal(false) }).strict();
export type InboxClosed = z.infer<typeof InboxClosedSchema>;

/** `POST /inbox/resolve`: the inbox's code, and its password when it has one. */
export const InboxResolveSchema = z.object({
  code: z.string().min(1).max(256),
  password: z.string().max(1024).nullish(),
});
export type InboxResolveInput = z.input<typeof InboxResolveSchema>;

/** What a sender may send to this computer, and until when. */
export const InboxGrantSchema = z.object(inboxGrantShape).strict();
export type InboxGrant = z.infer<typeof InboxGrantSchema>;

/** `POST /uploads/:id/publish` of an inbox upload: delivered, and no pickup code. */
export const DeliveredSchema = ParcelViewSchema.extend({ delivered: z.literal(true) }).strict();
export type Delivered = z.infer<typeof DeliveredSchema>;
