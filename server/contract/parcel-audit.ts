/**
 * Every action the parcel service records in its audit log, with the members its detail may
 * have. One list for both sides: the service's `ctx.audit` accepts only these members for
 * each action (domain/ports.ts), and the console words each of them (admin/audit-words.ts,
 * checked by test/unit/parcel-admin-words.test.ts), so a new member cannot reach a reader as
 * a raw key. The order is the one the console's action filter offers.
 */
export const AUDIT_DETAILS = {
  "upload.create": ["files", "bytes", "inbox"],
  /** `bytes`: how many had arrived when it stopped. */
  "upload.fail": ["name", "parcel", "reason", "bytes"],
  "upload.remove": ["name", "size", "parcel"],
  "parcel.publish": ["inbox"],
  "parcel.revoke": [],
  "parcel.code": [],
  "parcel.lock": ["reason"],
  "pickup.resolve": [],
  "pickup.deny": ["reason"],
  /** One file (`parcel`, `name`, `size`) or the whole parcel as a ZIP (`archive`, `files`). */
  "download.start": ["parcel", "name", "size", "archive", "files", "downloads_left"],
  /** As `download.start`; `bytes` is what was sent, `expires_at` the renewed expiry. */
  "download.complete": ["parcel", "name", "size", "archive", "files", "bytes", "expires_at"],
  "admin.login": [],
  "admin.login_fail": ["username"],
  "admin.logout": [],
  "admin.password": [],
  "admin.password_fail": [],
  "admin.parcel_delete": [],
  "admin.file_delete": ["name", "size", "parcel", "state"],
  "admin.reissue": ["expires_at", "downloads"],
  /** `changed`: the policy's (or the runtime settings') members that changed, by their keys. */
  "admin.policy": ["changed"],
  "admin.runtime": ["changed"],
  "admin.cleanup": ["parcels", "files", "bytes"],
  "admin.verify": [],
  "inbox.open": ["minutes", "has_password", "closes_at"],
  "inbox.close": ["reason"],
  "inbox.resolve": [],
  "inbox.deny": ["reason"],
  "system.start": ["version"],
} as const satisfies Record<string, readonly string[]>;

export type AuditAction = keyof typeof AUDIT_DETAILS;

/** The members one action's detail may have. */
export type AuditDetailKey<A extends AuditAction = AuditAction> = (typeof AUDIT_DETAILS)[A][number];

/** One action's detail: any of its members, no other (none for an action without members). */
export type AuditDetail<A extends AuditAction> = [AuditDetailKey<A>] extends [never]
  ? Record<string, never>
  : { [K in AuditDetailKey<A>]?: unknown };

/** Every action, in the order the console's filter offers them. */
export const AUDIT_ACTIONS = Object.keys(AUDIT_DETAILS) as AuditAction[];
