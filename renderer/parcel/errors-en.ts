import type { ParamsOf, ParcelErrorCode } from "../../server/http/error-codes.js";
import type { ErrorTable } from "../shared/error-table.js";
import { formatBytes } from "../shared/format.js";
import { plural } from "../shared/i18n.js";

const FILE_NAME_REASONS: Record<string, string> = {
  empty: "it is empty",
  encoding: "it is not valid text",
  too_long: "it is longer than 255 bytes",
  slash: "it contains / or \\",
  control: "it contains control characters",
  invisible: "it contains invisible or text-direction characters",
  dots: "it cannot be . or ..",
};

function wrongPassword(p: ParamsOf<"pickup.password_wrong">): string {
  const left = Number(p.attempts_left);
  if (left <= 0) return "Wrong password, and that was the last try: the parcel is now locked.";
  return plural("en", left, {
    one: "Wrong password. 1 try left before the parcel is locked.",
    other: "Wrong password. {count} tries left before the parcel is locked.",
  });
}

/** The parcel service's errors in English, by code (see renderer/shared/error-table.ts). */
export const PARCEL_EN: ErrorTable<ParcelErrorCode> = {
  "auth.origin_required": () =>
    "The browser did not say which page sent this request; reload the page and try again.",
  "auth.service_origin": () =>
    "This page's address is not one of the service's addresses; open the page from one of them.",
  "auth.bearer_format": () => "The manage token is not in the expected form.",
  "admin.sign_in_required": () => "Sign in as the administrator first.",
  "admin.login_wrong": () => "Wrong username or password.",
  "admin.login_limit": () => "Too many failed sign-ins; try again later.",
  "admin.current_password_wrong": () => "The current password is wrong.",
  "admin.password_short": (p) =>
    `The new password must be at least ${plural("en", p.min, { one: "1 character", other: "{count} characters" })} long.`,
  "admin.password_long": (p) =>
    `The new password must be at most ${plural("en", p.max, { one: "1 byte", other: "{count} bytes" })} long.`,
  "owner.credential_required": () =>
    "This browser is not known as the parcel's sender (no visitor identity or manage token).",
  "owner.visitor_required": () => "This browser has no visitor identity yet; reload the page.",
  "owner.token_invalid": () => "This manage token is not valid.",
  "owner.token_other": () => "This manage token belongs to another parcel.",
  "owner.not_yours": () => "This parcel was sent from another browser.",
  "owner.token_needed": () =>
    "This browser does not hold the parcel's key, which is needed to show its code again.",
  "upload.disabled": () => "Sending is switched off by the administrator.",
  "upload.too_many_files": (p) =>
    `A parcel may hold at most ${plural("en", p.limit, { one: "1 file", other: "{count} files" })}.`,
  "upload.file_name": (p) =>
    `The name of file ${p.index} ("${p.name}") is refused: ${FILE_NAME_REASONS[p.reason] ?? "it is not allowed"}.`,
  "upload.same_name": (p) =>
    `"${p.first}" and "${p.second}" are the same name written differently; give every file its own name.`,
  "upload.days": (p) =>
    `A parcel can be kept at most ${plural("en", p.max, { one: "1 day", other: "{count} days" })}.`,
  "upload.downloads": (p) =>
    plural("en", p.max, {
      one: "At most 1 download is allowed.",
      other: "At most {count} downloads are allowed.",
    }),
  "upload.password_required": () => "A password is required for every parcel.",
  "upload.file_too_large": (p) =>
    `${p.name} is larger than the limit of ${formatBytes(Number(p.limit))} per file.`,
  "upload.parcel_too_large": (p) =>
    `The parcel is larger than the limit of ${formatBytes(Number(p.limit))}.`,
  "upload.daily_limit": () => "Today's upload allowance for this address is used up.",
  "upload.inbox_terms": () =>
    "Files sent to a computer's inbox take no expiry, download count or password: the computer's owner keeps them.",
  "storage.file_budget": () =>
    "The gateway has no room for this right now: it holds as many files as it may. Try fewer files, or later.",
  "storage.data_budget": () =>
    "The gateway has no room for this right now: its storage budget is used up. Try fewer or smaller files, or later.",
  "storage.disk_space": () =>
    "The gateway has no room for this right now: its disk is nearly full. Try fewer or smaller files, or later.",
  "storage.no_code": () => "No free pickup code is available; try again later.",
  "upload.closed": () => "This parcel no longer accepts files.",
  "upload.busy": () => "This file is already being uploaded.",
  "upload.file_removed": () => "This file was taken out of the upload while it was being sent.",
  "upload.too_long": () => "More data arrived than the file's size.",
  "upload.length_mismatch": () => "The data sent does not match the file's size.",
  "upload.cut_off": () => "The transfer was cut off; send the file again.",
  "upload.aborted": () => "The transfer ended early; send the file again.",
  "upload.slow": () => "The upload was too slow and was stopped; send the whole file again.",
  "upload.disk_full": () => "There is not enough free disk space to store this file.",
  "upload.store_failed": () => "The file could not be stored.",
  "upload.offset_mismatch": (p) =>
    `The server already holds ${formatBytes(Number(p.offset))} of this file; continue from there.`,
  "upload.offset_invalid": () => "The resume request did not say where to continue.",
  "upload.content_type": () => "A resumed upload must be sent as application/offset+octet-stream.",
  "upload.tus_version": (p) =>
    `This server resumes uploads with tus 1.0.0; the client asked for version ${p.version}.`,
  "upload.session_ended": () => "This upload has ended and can no longer be sent.",
  "upload.not_ready": (p) =>
    plural("en", p.count, {
      one: "1 file is not uploaded yet.",
      other: "{count} files are not uploaded yet.",
    }),
  "parcel.not_found": () => "No such parcel.",
  "parcel.file_not_found": () => "No such file in this parcel.",
  "parcel.not_published": () => "A new code can only be issued for a sent parcel.",
  "parcel.not_in_review": () => "Only a locked parcel can be reissued.",
  "upload.last_file": () =>
    "The last file of a parcel cannot be removed: cancel the upload instead.",
  "parcel.code_ended": () => "This parcel cannot be picked up now, so its code is not shown.",
  "parcel.code_not_kept": () =>
    "The code in use was issued without this parcel's key (by the administrator after the parcel was locked), so it cannot be shown here. Issue a new code to get one you can see; the one in use then stops working.",
  "parcel.inbox_code": () =>
    "This parcel was sent to a computer's inbox: only that computer's owner has its code.",
  "inbox.session_required": () =>
    "Open the inbox with its code again: it was closed, got a new code, or this page waited too long.",
  "inbox.code_unknown": () =>
    "No open inbox has this code: check it, or ask the computer's owner to open the inbox again.",
  "inbox.password_required": () => "This inbox needs its password.",
  "inbox.password_wrong": () => "Wrong password for this inbox.",
  "pickup.code_unknown": () => "No parcel has this code. Check it and try again.",
  "pickup.inbox_code": (p) => `This is an inbox code: it sends files to ${p.name}.`,
  "pickup.code_first": () => "Enter the pickup code first.",
  "pickup.code_changed": () => "The pickup code has changed; enter the new code.",
  "pickup.password_required": () => "This parcel needs a password.",
  "pickup.password_wrong": wrongPassword,
  "pickup.too_many": () => "Too many failed pickup attempts from this address; try again later.",
  "pickup.service_busy": () => "Too many failed pickup attempts on this service; try again later.",
  "pickup.checks_busy": () =>
    "Many recipients are checking passwords right now; try again in a moment.",
  "parcel.expired": () => "This parcel has expired.",
  "parcel.exhausted": () => "This parcel has no downloads left.",
  "parcel.revoked": () => "The sender has withdrawn this parcel.",
  "parcel.locked": () =>
    "This parcel is locked after too many wrong passwords. Ask the sender; the administrator can unlock it.",
  "parcel.gone": () => "This parcel no longer exists.",
  "parcel.file_gone": () => "This file is no longer available.",
  "parcel.no_files": () => "This parcel has no files left.",
  "download.read_failed": () => "The file could not be read; try again.",
  "download.damaged": (p) =>
    `The stored copy of ${p.name} was found damaged and is not sent; ask the sender to send it again.`,
  "policy.conflict": () => "Some of these settings contradict each other.",
  "admin.state_filter": () => "That state filter is not known.",
  "admin.action_filter": () => "An action filter looks like scope.verb.",
  "admin.time_range": () => "The time range starts after it ends.",
  "admin.query_repeated": (p) => `The filter ${p.field} was given more than once.`,
  "admin.query_too_long": (p) => `The filter ${p.field} is too long.`,
};
