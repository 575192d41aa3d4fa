import { z } from "zod";
import { AdminParcelViewSchema, PARCEL_STATES, ParcelStateSchema } from "./parcel-views.js";

/** What the administrator's console sends to the parcel service and gets back. */

const count = z.number().int().min(0);

/** `POST /admin/login`. */
export const LoginSchema = z.object({
  username: z.string().min(1).max(256),
  password: z.string().max(1024),
});
export type LoginInput = z.input<typeof LoginSchema>;
export const LoggedInSchema = z.object({ username: z.string() }).strict();
export type LoggedIn = z.infer<typeof LoggedInSchema>;

/** `GET /admin/status` and the answer of `POST /admin/logout`. */
export const SessionStatusSchema = z
  .object({ authenticated: z.boolean(), username: z.string().nullable() })
  .strict();
export type SessionStatus = z.infer<typeof SessionStatusSchema>;

/** `PUT /admin/password`: the current password and the new one. */
export const PasswordChangeSchema = z.object({
  current_password: z.string().max(1024),
  password: z.string().max(1024),
});
export type PasswordChangeInput = z.input<typeof PasswordChangeSchema>;
export const OkSchema = z.object({ ok: z.literal(true) }).strict();
export type Ok = z.infer<typeof OkSchema>;

/** `GET /admin/stats`: what is stored and what the budgets allow. */
export const StatsSchema = z
  .object({
    parcels: z
      .object({
        total: count,
        by_state: z.object(
          Object.fromEntries(PARCEL_STATES.map((s) => [s, count])) as Record<
            (typeof PARCEL_STATES)[number],
            typeof count
          >,
        ),
      })
      .strict(),
    files: z.object({ total: count, blobs: count }).strict(),
    logical_bytes: count,
    stored_bytes: count,
    reserved_bytes: count,
    budgets: z
      .object({
        file_budget: count,
        files_used: count,
        data_budget_bytes: count,
        data_used_bytes: count,
        disk_free_bytes: count,
        disk_headroom_bytes: count,
      })
      .strict(),
    concurrency: z.object({ uploads_active: count, downloads_active: count }).strict(),
  })
  .strict();
export type Stats = z.infer<typeof StatsSchema>;

/** One page of a list, with where it stands in the whole. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z
    .object({
      items: z.array(item),
      total: count,
      page: z.number().int().min(1),
      page_size: z.number().int().min(1),
      pages: z.number().int().min(1),
    })
    .strict();
}
/** Longest value of a text filter. */
export const FILTER_MAX = 500;
const integerText = z.string().regex(/^-?\d{1,15}$/);
const filterText = z.string().max(FILTER_MAX);
const pageQuery = {
  page: integerText.optional(),
  page_size: integerText.optional(),
};

/** `GET /admin/parcels`: a page, a state, and a fragment of a file name or an id. */
export const ParcelsQuerySchema = z.object({
  ...pageQuery,
  state: ParcelStateSchema.optional(),
  q: filterText.optional(),
});
export const AdminParcelPageSchema = pageOf(AdminParcelViewSchema);
export type AdminParcelPage = z.infer<typeof AdminParcelPageSchema>;

/** An audit action: `<scope>.<verb>` in lower-case letters, digits and `_`. */
export const ACTION_FORM = /^[a-z0-9_]+\.[a-z0-9_]+$/;

/** `GET /admin/audit`: a page, and fragments of the action, source and target, a time range. */
export const AuditQuerySchema = z.object({
  ...pageQuery,
  action: filterText.regex(ACTION_FORM).optional(),
  source: filterText.optional(),
  target: filterText.optional(),
  from: integerText.optional(),
  to: integerText.optional(),
});

/** One audit record: who did what to what, when, with the names its target still has. */
export const AuditRecordSchema = z
  .object({
    id: z.number().int(),
    action: z.string(),
    source: z.string(),
    target: z.string(),
    time: z.number().int(),
    detail: z.record(z.string(), z.unknown()),
    /**
     * The file's or parcel's first names and how many files, their size, a parcel's pickup
     * code's last characters, and when cleanup removed a parcel (null while it is kept);
     * null when nothing is known of the target.
     */
    target_name: z
      .object({
        files: z.array(z.string()),
        total: count,
        bytes: count.nullable(),
        code_tail: z.string().nullable(),
        removed_at: z.number().int().nullable(),
      })
      .strict()
      .nullable(),
  })
  .strict();
export type AuditRecord = z.infer<typeof AuditRecordSchema>;
export const AuditPageSchema = pageOf(AuditRecordSchema);
export type AuditPage = z.infer<typeof AuditPageSchema>;

/** `GET /admin/errors`: the service's last warnings and errors, newest first. */
export const RecentProblemsSchema = z
  .object({
    items: z.array(
      z
        .object({
          time: z.number().int(),
          level: z.enum(["warn", "error"]),
          /** Names the problem; a page says it in its reader's language. */
          code: z.string(),
          /** The values its sentence names (with `reason_code`, the error behind it). */
          params: z.record(z.string(), z.union([z.string(), z.number()])),
          /** The English sentence of the service's log. */
          message: z.string(),
          request_id: z.string().nullable(),
        })
        .strict(),
    ),
  })
  .strict();
export type RecentProblems = z.infer<typeof RecentProblemsSchema>;

/** `POST /admin/cleanup`: what a full cleanup removed. */
export const CleanupResultSchema = z
  .object({ parcels: count, files: count, bytes: count })
  .strict();
export type CleanupResult = z.infer<typeof CleanupResultSchema>;
