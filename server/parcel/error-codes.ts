import type { ErrorRegistry } from "../http/error-registry.js";

/**
 * The parcel service's error codes and the values each sentence mentions (see
 * server/http/error-codes.ts). The pickup and send pages translate every one of them.
 */
export const PARCEL_ERRORS = {
  // Origin checks of state-changing requests.
  "auth.origin_required": [],
  "auth.service_origin": [],
  // Credentials.
  "auth.bearer_format": [],
  "admin.sign_in_required": [],
  "admin.login_wrong": [],
  "admin.login_limit": [],
  "admin.current_password_wrong": [],
  "admin.password_short": ["min"],
  "admin.password_long": ["max"],
  "owner.credential_required": [],
  "owner.visitor_required": [],
  "owner.token_invalid": [],
  "owner.token_other": [],
  "owner.not_yours": [],
  "owner.token_needed": [],
  // Admission of a new upload (`name` is the file's name as it can be shown safely).
  "upload.disabled": [],
  "upload.too_many_files": ["limit"],
  /** `reason`: empty, encoding, too_long, slash, control, invisible or dots. */
  "upload.file_name": ["index", "name", "reason"],
  "upload.same_name": ["first", "second"],
  "upload.days": ["max"],
  "upload.downloads": ["max"],
  "upload.password_required": [],
  "upload.file_too_large": ["name", "limit"],
  "upload.parcel_too_large": ["limit"],
  "upload.inbox_terms": [],
  "upload.daily_limit": [],
  "storage.file_budget": [],
  "storage.data_budget": [],
  "storage.disk_space": [],
  "storage.no_code": [],
  // Receiving a file's bytes.
  "upload.closed": [],
  "upload.busy": [],
  /** The file was left out of its upload (DELETE) while its bytes were being sent or stored. */
  "upload.file_removed": [],
  "upload.too_long": [],
  "upload.length_mismatch": [],
  "upload.cut_off": [],
  "upload.aborted": [],
  "upload.slow": [],
  "upload.disk_full": [],
  "upload.store_failed": [],
  "upload.offset_mismatch": ["offset"],
  "upload.offset_invalid": [],
  "upload.content_type": [],
  "upload.tus_version": ["version"],
  // Publishing and the owner's actions.
  "upload.session_ended": [],
  "upload.last_file": [],
  "upload.not_ready": ["count"],
  "parcel.not_found": [],
  "parcel.file_not_found": [],
  "parcel.not_published": [],
  "parcel.not_in_review": [],
  "parcel.code_ended": [],
  "parcel.code_not_kept": [],
  "parcel.inbox_code": [],
  // The inbox.
  "inbox.session_required": [],
  "inbox.code_unknown": [],
  "inbox.password_required": [],
  "inbox.password_wrong": [],
  // Pickup and download.
  "pickup.code_unknown": [],
  /** Not a parcel's code but the open inbox's: `name` is the computer's, as senders see it. */
  "pickup.inbox_code": ["name"],
  "pickup.code_first": [],
  "pickup.code_changed": [],
  "pickup.password_required": [],
  /** `attempts_left` is also a member of the answer beside `password_required`. */
  "pickup.password_wrong": ["attempts_left"],
  "pickup.too_many": [],
  "pickup.service_busy": [],
  "pickup.checks_busy": [],
  "parcel.expired": [],
  "parcel.exhausted": [],
  "parcel.revoked": [],
  "parcel.locked": [],
  "parcel.gone": [],
  "parcel.file_gone": [],
  "parcel.no_files": [],
  "download.read_failed": [],
  /** `name`: the file whose stored copy was found damaged (and quarantined). */
  "download.damaged": ["name"],
  // Administration.
  /** The contradicting members are listed in `conflicts` beside the code. */
  "policy.conflict": [],
  "admin.state_filter": [],
  "admin.action_filter": [],
  "admin.time_range": [],
  "admin.query_repeated": ["field"],
  "admin.query_too_long": ["field"],
} as const satisfies ErrorRegistry;
