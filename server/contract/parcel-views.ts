import { z } from "zod";
import { recipientShape } from "./parcel-public.js";

/**
 * What senders, owners and recipients send to the parcel service and get back. Times are
 * Unix seconds; sizes are bytes.
 */

export const PARCEL_STATES = [
  "uploading",
  "published",
  "expired",
  "exhausted",
  "revoked",
  "review",
] as const;
export const ParcelStateSchema = z.enum(PARCEL_STATES);
export type ParcelState = z.infer<typeof ParcelStateSchema>;

export const FileStateSchema = z.enum(["pending", "ready", "failed"]);
export type FileState = z.infer<typeof FileStateSchema>;

const count = z.number().int().min(0);
const time = z.number().int();

export const ParcelFileSchema = z
  .object({ id: z.string(), name: z.string(), size: count, state: FileStateSchema })
  .strict();
export type ParcelFile = z.infer<typeof ParcelFileSchema>;

/** A parcel as its owner sees it (`GET /uploads/:id`, `GET /mine`, revoke). */
export const ParcelViewSchema = z
  .object({
    id: z.string(),
    state: ParcelStateSchema,
    files: z.array(ParcelFileSchema),
    created_at: time,
    sent_at: time.nullable(),
    expires_at: time,
    downloads_allowed: count,
    downloads_left: count,
    has_password: z.boolean(),
    renew: z.boolean(),
  })
  .strict();
export type ParcelView = z.infer<typeof ParcelViewSchema>;

/** A parcel as the administrator sees it: with its size and who owns it. */
export const AdminParcelViewSchema = ParcelViewSchema.extend({
  bytes: count,
  owner: z.enum(["visitor", "token"]),
}).strict();
export type AdminParcelView = z.infer<typeof AdminParcelViewSchema>;

/** A parcel as its recipient sees it (`GET /pickup`, `POST /pickup/resolve`). */
export const RecipientViewSchema = z.object(recipientShape).strict();
export type RecipientView = z.infer<typeof RecipientViewSchema>;

export const ShareUrlSchema = z
  .object({
    /** English, for API clients; pages name the entry from the URL's host. */
    label: z.string(),
    url: z.string(),
  })
  .strict();
export type ShareUrl = z.infer<typeof ShareUrlSchema>;

/** Where a recipient picks the parcel up; `code` only when a new one was just issued. */
export const ShareSchema = z
  .object({
    code: z.string().optional(),
    url: z.string(),
    urls: z.array(ShareUrlSchema),
    expires_at: time,
    downloads_left: count,
  })
  .strict();
export type Share = z.infer<typeof ShareSchema>;

/** `POST /uploads/:id/publish`: the parcel and where it is picked up. */
export const PublishedSchema = ParcelViewSchema.extend(ShareSchema.shape).strict();
export type Published = z.infer<typeof PublishedSchema>;

/** `POST /admin/parcels/:id/reissue`: the parcel and its new code. */
export const ReissuedSchema = AdminParcelViewSchema.extend(ShareSchema.shape).strict();
export type Reissued = z.infer<typeof ReissuedSchema>;

/** `POST /uploads`: the files to send and the sender's choices (defaults from the policy). */
export const ManifestSchema = z.object({
  files: z
    .array(
      z.object({
        name: z.string(),
        size: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
      }),
    )
    .min(1, "at least one file is required"),
  days: z.number().int().min(1).optional(),
  downloads: z.number().int().min(1).optional(),
  password: z.string().max(1024).optional(),
  renew: z.boolean().optional(),
  /**
   * Sent to this computer's inbox (needs the `inbox_session` cookie): the terms are the
   * policy's defaults and the sender never learns a pickup code.
   */
  inbox: z.boolean().optional(),
});
export type ManifestInput = z.input<typeof ManifestSchema>;

/** `POST /uploads`: the new session, its manage token (shown once) and its file ids. */
export const UploadCreatedSchema = z
  .object({
    id: z.string(),
    manage_token: z.string(),
    files: z.array(z.object({ id: z.string(), name: z.string(), size: count }).strict()),
    expires_at: time,
  })
  .strict();
export type UploadCreated = z.infer<typeof UploadCreatedSchema>;

/** `PUT /uploads/:id/files/:file`: the file once its bytes are stored. */
export const UploadedFileSchema = ParcelFileSchema.extend({
  sha256: z.string().nullable(),
}).strict();
export type UploadedFile = z.infer<typeof UploadedFileSchema>;

/** `GET /mine`: the parcels this browser sent, newest first. */
export const MineSchema = z.object({ items: z.array(ParcelViewSchema) }).strict();
export type Mine = z.infer<typeof MineSchema>;

/** `POST /pickup/resolve`: a pickup code, and the parcel's password when it has one. */
export const ResolveSchema = z.object({
  code: z.string().min(1).max(256),
  password: z.string().max(1024).nullish(),
});
export type ResolveInput = z.input<typeof ResolveSchema>;

/** `GET /health`. */
export const HealthSchema = z
  .object({ ok: z.literal(true), initialized: z.boolean(), version: z.string() })
  .strict();
export type Health = z.infer<typeof HealthSchema>;

export const IdParamsSchema = z.object({ id: z.string() });
export const UploadFileParamsSchema = z.object({ id: z.string(), file: z.string() });
export const PickupFileParamsSchema = z.object({ file: z.string() });
/**
 * `GET /pickup/archive`: the language the archive's name is written in, and the reader's
 * offset from UTC in minutes (east positive) for the day in the name.
 */
export const ArchiveQuerySchema = z.object({
  lang: z.string().optional(),
  utc_offset: z.string().optional(),
});
