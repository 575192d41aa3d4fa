import { z } from "zod";
import {
  AdminParcelPageSchema,
  AuditPageSchema,
  AuditQuerySchema,
  CleanupResultSchema,
  LoggedInSchema,
  LoginSchema,
  OkSchema,
  ParcelsQuerySchema,
  PasswordChangeSchema,
  RecentProblemsSchema,
  SessionStatusSchema,
  StatsSchema,
} from "./parcel-admin.js";
import {
  PolicyPatchSchema,
  PolicySchema,
  PublicPolicySchema,
  RuntimePatchSchema,
  RuntimeSchema,
} from "./parcel-policy.js";
import {
  AdminParcelViewSchema,
  ArchiveQuerySchema,
  HealthSchema,
  IdParamsSchema,
  ManifestSchema,
  MineSchema,
  ParcelViewSchema,
  PickupFileParamsSchema,
  PublishedSchema,
  RecipientViewSchema,
  ReissuedSchema,
  ResolveSchema,
  ShareSchema,
  UploadCreatedSchema,
  UploadedFileSchema,
  UploadFileParamsSchema,
} from "./parcel-views.js";
import type { ParcelAccess } from "./access.js";
import type { ApiContract } from "./route.js";
import {
  DeliveredSchema,
  InboxClosedSchema,
  InboxGrantSchema,
  InboxOpenedSchema,
  InboxOpenSchema,
  InboxResolveSchema,
  InboxViewSchema,
} from "./parcel-inbox.js";
import { VerifyStatusSchema } from "./parcel-verify.js";

export * from "./parcel-admin.js";
export * from "./parcel-inbox.js";
export * from "./parcel-policy.js";
export * from "./parcel-views.js";
export * from "./parcel-verify.js";

const json = <S extends z.ZodType>(description: string, schema: S) => ({ description, schema });
const OWNER =
  "Needs the parcel's manage token (`Authorization: Bearer`) or its owner's visitor cookie.";
const PICKUP = "Needs the pickup cookie that resolving the parcel's code gave.";
const ADMIN = "Needs the administrator's session cookie.";

/**
 * Every route of the parcel service (below `/api/v1`), keyed like its route table: what each
 * takes and answers. The routes parse with these schemas, the pages check answers with them,
 * and `GET /openapi.json` is made from them.
 */
export const PARCEL_API = {
  "GET /health": {
    access: "public",
    summary: "Whether the service runs, is set up, and its version",
    tag: "Service",
    responses: { 200: json("The service runs", HealthSchema) },
  },
  "GET /openapi.json": {
    access: "public",
    summary: "This API described as an OpenAPI 3.1 document",
    tag: "Service",
    responses: { 200: { description: "The document", mediaType: "application/json" } },
  },
  "GET /policy": {
    access: "public",
    summary: "What a sender may do, and the service's addresses",
    description: "Starts a visitor cookie when the browser has none.",
    tag: "Uploads",
    responses: { 200: json("The public policy", PublicPolicySchema) },
  },
  "POST /uploads": {
    access: "public",
    summary: "Start an upload session for a parcel",
    description:
      "Reserves room for the declared files. The answer's manage_token is shown only here.",
    tag: "Uploads",
    body: ManifestSchema,
    responses: { 201: json("The session, its manage token and its file ids", UploadCreatedSchema) },
  },
  "GET /uploads/:id": {
    access: "owner",
    summary: "A parcel as its owner sees it",
    description: OWNER,
    tag: "Uploads",
    params: IdParamsSchema,
    responses: { 200: json("The parcel", ParcelViewSchema) },
  },
  "PUT /uploads/:id/files/:file": {
    access: "owner",
    summary: "Send the bytes of one declared file",
    description: `${OWNER} The body is the whole file; its length must be the declared size.`,
    tag: "Uploads",
    params: UploadFileParamsSchema,
    rawBody: "application/octet-stream",
    responses: { 200: json("The file, stored", UploadedFileSchema) },
  },
  "HEAD /uploads/:id/files/:file": {
    access: "owner",
    summary: "How many bytes of one file are stored (resumable upload, tus 1.0 core)",
    description: `${OWNER} No body: \`Upload-Offset\` is the number of bytes safely stored (synced to disk), \`Upload-Length\` the declared size; a stored file answers its size.`,
    tag: "Uploads",
    params: UploadFileParamsSchema,
    responses: { 200: { description: "Upload-Offset, Upload-Length and Tus-Resumable headers" } },
  },
  "PATCH /uploads/:id/files/:file": {
    access: "owner",
    summary: "Append bytes to one file from a given offset (resumable upload, tus 1.0 core)",
    description: `${OWNER} Headers \`Tus-Resumable: 1.0.0\` and \`Upload-Offset\` (must equal the stored offset, else 409 with the stored one); the body continues the file from there. When the last byte arrives the file is stored as by PUT. A \`Tus-Resumable\` naming another version than 1.0.0 is refused with 412 and \`Tus-Version: 1.0.0\` (HEAD too).`,
    tag: "Uploads",
    params: UploadFileParamsSchema,
    rawBody: "application/offset+octet-stream",
    responses: { 204: { description: "Appended; Upload-Offset says the new offset" } },
  },
  "DELETE /uploads/:id/files/:file": {
    access: "owner",
    summary: "Leave one file out of an upload that is still open",
    description: `${OWNER} Its part of the reservation is released and a running upload of it is stopped (that PUT or PATCH answers 409 \`upload.file_removed\`); the other files go on. The last file cannot be removed (409): cancel the upload instead.`,
    tag: "Uploads",
    params: UploadFileParamsSchema,
    responses: { 200: json("The parcel without the file", ParcelViewSchema) },
  },
  "POST /uploads/:id/publish": {
    access: "owner",
    summary: "Publish a parcel whose files are all uploaded",
    description: `${OWNER} The first publish issues the pickup code; later ones do not. An upload sent to the inbox answers \`delivered: true\` and no code, url or urls: its sender never learns the code.`,
    tag: "Uploads",
    params: IdParamsSchema,
    responses: {
      200: json(
        "The parcel and where it is picked up (or, sent to the inbox, that it was delivered)",
        z.union([PublishedSchema, DeliveredSchema]),
      ),
    },
  },
  "GET /mine": {
    access: "visitor",
    summary: "The parcels this browser sent",
    description: "Needs the visitor cookie.",
    tag: "Owner",
    responses: { 200: json("The parcels, newest first", MineSchema) },
  },
  "POST /parcels/:id/revoke": {
    access: "owner",
    summary: "End a parcel now",
    description: OWNER,
    tag: "Owner",
    params: IdParamsSchema,
    responses: { 200: json("The parcel", ParcelViewSchema) },
  },
  "POST /parcels/:id/code": {
    access: "owner",
    summary: "Issue a new pickup code (the old one stops working)",
    description: OWNER,
    tag: "Owner",
    params: IdParamsSchema,
    responses: { 200: json("Where the parcel is picked up, with the new code", ShareSchema) },
  },
  "GET /parcels/:id/code": {
    access: "owner-token",
    summary: "Show the current pickup code again",
    description:
      "Needs the parcel's manage token (`Authorization: Bearer`): the code is kept only sealed with a key derived from it. Refused (404) when the current code was issued without the token (an administrator's reissue), and (409) when the parcel cannot be picked up now.",
    tag: "Owner",
    params: IdParamsSchema,
    responses: { 200: json("Where the parcel is picked up, with its current code", ShareSchema) },
  },
  "POST /pickup/resolve": {
    access: "public",
    summary: "Open a parcel by its pickup code (and password)",
    description: "Sets the pickup cookie the other pickup routes need.",
    tag: "Pickup",
    body: ResolveSchema,
    responses: { 200: json("The parcel as its recipient sees it", RecipientViewSchema) },
  },
  "GET /pickup": {
    access: "pickup",
    summary: "The parcel the pickup cookie opens",
    description: PICKUP,
    tag: "Pickup",
    responses: { 200: json("The parcel as its recipient sees it", RecipientViewSchema) },
  },
  "GET /pickup/files/:file/download": {
    access: "pickup",
    summary: "Download one file (HEAD and byte ranges too)",
    description: PICKUP,
    tag: "Pickup",
    params: PickupFileParamsSchema,
    responses: {
      200: { description: "The file", mediaType: "application/octet-stream" },
      206: { description: "A byte range of the file", mediaType: "application/octet-stream" },
    },
  },
  "GET /pickup/archive": {
    access: "pickup",
    summary: "Download every file as one ZIP archive (HEAD and byte ranges too)",
    description: `${PICKUP} The archive is named after the parcel (the day it was sent, how many files), in the language \`lang\` asks for and on the calendar of \`utc_offset\` (minutes east of UTC) when given.`,
    tag: "Pickup",
    query: ArchiveQuerySchema,
    responses: {
      200: { description: "The archive", mediaType: "application/zip" },
      206: { description: "A byte range of the archive", mediaType: "application/zip" },
    },
  },
  "POST /inbox/resolve": {
    access: "public",
    summary: "Open this computer's inbox by its code (and password) to send files to it",
    description:
      'Sets the 10-minute `inbox_session` cookie that `POST /uploads` with `"inbox": true` needs. An unknown or closed code answers 404, a wrong password 403; both count toward the same guessing limits as pickups (429).',
    tag: "Inbox",
    body: InboxResolveSchema,
    responses: { 200: json("Whom the files go to and what may be sent", InboxGrantSchema) },
  },
  "POST /admin/login": {
    access: "admin-session",
    summary: "Sign the administrator in",
    description: "Sets the session cookie. Failed sign-ins per address are limited.",
    tag: "Administrator",
    body: LoginSchema,
    responses: { 200: json("Signed in", LoggedInSchema) },
  },
  "POST /admin/logout": {
    access: "admin-session",
    summary: "Sign the administrator out",
    tag: "Administrator",
    responses: { 200: json("Signed out", SessionStatusSchema) },
  },
  "GET /admin/status": {
    access: "admin-session",
    summary: "Whether this browser holds an administrator's session",
    tag: "Administrator",
    responses: { 200: json("The session", SessionStatusSchema) },
  },
  "PUT /admin/password": {
    access: "admin",
    summary: "Change the administrator's password",
    description: `${ADMIN} Every other session ends.`,
    tag: "Administrator",
    body: PasswordChangeSchema,
    responses: { 200: json("Changed", OkSchema) },
  },
  "GET /admin/stats": {
    access: "admin",
    summary: "What is stored and what the budgets allow",
    description: ADMIN,
    tag: "Administrator",
    responses: { 200: json("The figures", StatsSchema) },
  },
  "GET /admin/parcels": {
    access: "admin",
    summary: "Every parcel, newest first, a page at a time",
    description: ADMIN,
    tag: "Administrator",
    query: ParcelsQuerySchema,
    responses: { 200: json("One page of parcels", AdminParcelPageSchema) },
  },
  "POST /admin/parcels/:id/delete": {
    access: "admin",
    summary: "Delete a parcel and its files",
    description: ADMIN,
    tag: "Administrator",
    params: IdParamsSchema,
    responses: { 200: json("The parcel, ended", AdminParcelViewSchema) },
  },
  "POST /admin/files/:id/delete": {
    access: "admin",
    summary: "Delete one file of a parcel",
    description: ADMIN,
    tag: "Administrator",
    params: IdParamsSchema,
    responses: { 200: json("The file's parcel", AdminParcelViewSchema) },
  },
  "POST /admin/parcels/:id/reissue": {
    access: "admin",
    summary: "Release a parcel held for review, with a new code",
    description: ADMIN,
    tag: "Administrator",
    params: IdParamsSchema,
    responses: { 200: json("The parcel and its new code", ReissuedSchema) },
  },
  "GET /admin/policy": {
    access: "admin",
    summary: "The whole business policy",
    description: ADMIN,
    tag: "Settings",
    responses: { 200: json("The policy", PolicySchema) },
  },
  "PUT /admin/policy": {
    access: "admin",
    summary: "Change members of the business policy",
    description: `${ADMIN} Members that would contradict each other are refused together.`,
    tag: "Settings",
    body: PolicyPatchSchema,
    responses: { 200: json("The policy as saved", PolicySchema) },
  },
  "GET /admin/runtime": {
    access: "admin",
    summary: "The budgets and the audit retention",
    description: ADMIN,
    tag: "Settings",
    responses: { 200: json("The runtime settings", RuntimeSchema) },
  },
  "PUT /admin/runtime": {
    access: "admin",
    summary: "Change budgets or the audit retention",
    description: ADMIN,
    tag: "Settings",
    body: RuntimePatchSchema,
    responses: { 200: json("The runtime settings as saved", RuntimeSchema) },
  },
  "POST /admin/cleanup": {
    access: "admin",
    summary: "Remove ended parcels and unused bytes now",
    description: ADMIN,
    tag: "Settings",
    responses: { 200: json("What was removed", CleanupResultSchema) },
  },
  "GET /admin/verify": {
    access: "admin",
    summary: "The check of every stored file against its checksum: running, or the last one",
    description: ADMIN,
    tag: "Settings",
    responses: { 200: json("Progress, what was found and what became of it", VerifyStatusSchema) },
  },
  "POST /admin/verify": {
    access: "admin",
    summary: "Start the check of every stored file now (it also runs weekly by itself)",
    description: `${ADMIN} Reads every stored file again, one at a time and at most half the time, in the background; a running check goes on.`,
    tag: "Settings",
    responses: { 200: json("The check as it now stands", VerifyStatusSchema) },
  },
  "GET /admin/audit": {
    access: "admin",
    summary: "The audit log, newest first, a page at a time",
    description: ADMIN,
    tag: "Audit",
    query: AuditQuerySchema,
    responses: { 200: json("One page of records", AuditPageSchema) },
  },
  "POST /admin/inbox": {
    access: "admin",
    summary: "Open the inbox (or reopen it with a new code)",
    description: `${ADMIN} Devices that open it by its code send files to this computer; the code before stops working.`,
    tag: "Inbox",
    body: InboxOpenSchema,
    responses: { 200: json("The open inbox and where devices open it", InboxOpenedSchema) },
  },
  "GET /admin/inbox": {
    access: "admin",
    summary: "The inbox and the parcels delivered to it, newest first, with their pickup codes",
    description: ADMIN,
    tag: "Inbox",
    responses: { 200: json("The inbox and its deliveries", InboxViewSchema) },
  },
  "DELETE /admin/inbox": {
    access: "admin",
    summary: "Close the inbox: its code stops working at once",
    description: ADMIN,
    tag: "Inbox",
    responses: { 200: json("Closed", InboxClosedSchema) },
  },
  "GET /admin/errors": {
    access: "admin",
    summary: "The service's last warnings and errors",
    description: `${ADMIN} Kept in memory: a restart starts the list afresh.`,
    tag: "Audit",
    responses: { 200: json("The problems, newest first", RecentProblemsSchema) },
  },
} as const satisfies ApiContract<ParcelAccess>;

/** A route of the parcel service, as its route table and its pages name it. */
export type ParcelRouteKey = keyof typeof PARCEL_API;
