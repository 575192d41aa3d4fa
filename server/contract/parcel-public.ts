import * as z from "zod/mini";

/**
 * The rules of the policy members and the two answers the pickup page reads, written with
 * zod's small build: the page a recipient opens from a link checks its answers without
 * loading the whole library. The full contract (parcel-policy.ts, parcel-views.ts) builds its
 * schemas from these same rules, so each rule is written once.
 */

/** A whole number from `min` to `max`. */
export const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.int().check(z.minimum(min), z.maximum(max));
const count = int(0);
const time = z.int();

/** Business policy: one rule per member. */
export const policyShape = {
  uploads_enabled: z.boolean(),
  max_files: int(1),
  max_file_bytes: int(1),
  max_parcel_bytes: int(1),
  default_days: int(1),
  max_days: int(1, 3650),
  default_downloads: int(1),
  max_downloads: int(1),
  require_password: z.boolean(),
  /** Whether a parcel's expiry renews on a complete download unless its sender says. */
  default_renew: z.boolean(),
  code_length: int(6, 16),
  renewal_mode: z.enum(["default", "term"]),
  renew_days: int(1, 30),
  renew_cap_days: int(1),
  daily_upload_bytes: int(1),
  password_attempts: int(1, 100),
  pickup_failures_per_ip: int(1, 100000),
};

/** `GET /policy`: the policy without the abuse thresholds, and the service's addresses. */
export const publicPolicyShape = {
  ...z.omit(z.object(policyShape), { password_attempts: true, pickup_failures_per_ip: true }).shape,
  /** The origin of the entry address the page was opened on. */
  public_url: z.string(),
  /** Every entry address of the service. */
  access_urls: z.array(z.string()),
  /** When the browser's visitor cookie ends (Unix seconds). */
  visitor_expires: time,
};
/** Checks a `GET /policy` answer (the pages' shell reads it on every page). */
export const PublicPolicyCheckSchema = z.strictObject(publicPolicyShape);

/** A parcel as its recipient sees it (`GET /pickup`, `POST /pickup/resolve`). */
export const recipientShape = {
  id: z.string(),
  files: z.array(z.strictObject({ id: z.string(), name: z.string(), size: count })),
  expires_at: time,
  downloads_left: count,
};
/** Checks a recipient's view of a parcel (the pickup page). */
export const RecipientViewCheckSchema = z.strictObject(recipientShape);

/** `POST /inbox/resolve`: whom the files go to, until when, and what may be sent. */
export const inboxGrantShape = {
  /** The computer's name, as the sender's page says it ("Send to …"). */
  name: z.string(),
  closes_at: time,
  max_files: int(1),
  max_file_bytes: int(1),
  max_parcel_bytes: int(1),
};
/** Checks the answer of opening an inbox (the phone's send page). */
export const InboxGrantCheckSchema = z.strictObject(inboxGrantShape);

/** `POST /uploads`: the session the phone's send page uploads into (the small build's check). */
export const UploadCreatedCheckSchema = z.strictObject({
  id: z.string(),
  manage_token: z.string(),
  files: z.array(z.strictObject({ id: z.string(), name: z.string(), size: count })),
  expires_at: time,
});

/** A stored file (`PUT …/files/:file`), as the uploader checks it. */
export const UploadedFileCheckSchema = z.object({
  id: z.string(),
  state: z.enum(["pending", "ready", "failed"]),
});

/** The answer of publishing an inbox upload: delivered, and nothing to hand on. */
export const DeliveredCheckSchema = z.object({ id: z.string(), delivered: z.literal(true) });
