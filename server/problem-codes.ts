import type { ErrorParams, ErrorRegistry, ParamValue } from "./http/error-codes.js";

/**
 * Every warning or error a service keeps for its console (the "Recent problems" lists) has a
 * stable `code`, so a page can say it in the reader's language, and the values its sentence
 * names (`params`: a file's or a subscription's name, an exit code; never a secret, an address
 * or a path). Codes follow the rules of the error codes (server/http/error-codes.ts): `area.reason`,
 * lower case, never reused for another meaning, and none shared with an error code.
 *
 * `reason_code?` marks a problem whose error names its own code (an HttpError, a subscription
 * failure): the log adds that code and its params, so the page can say why in the same
 * language. The pages' tables are typed by these registries, so a code without a sentence does
 * not compile; test/unit/problem-codes.test.ts checks that every call site names a code here.
 */

/** Problems both services record: the shared error handler's. */
export const COMMON_PROBLEMS = {
  /** A request failed on the service's side (a 500 answer); the reason is its error's code. */
  "request.failed": ["reason_code?"],
  /** A request was refused for lack of room (a 507 answer). */
  "request.no_room": ["reason_code?"],
  /** The disk or the database filled up while a request was answered. */
  "request.disk_full": [],
  /** Something the service did not foresee broke while a request was answered. */
  "request.unexpected": [],
} as const satisfies ErrorRegistry;

/** The parcel service's problems. */
export const PARCEL_PROBLEMS = {
  /** Administrator sign-in refused for one device after `attempts` wrong passwords. */
  "admin.sign_in_blocked": ["attempts", "minutes"],
  "cleanup.failed": [],
  "cleanup.reclaim_failed": [],
  /** `name`: the downloaded file's name (or the archive's). */
  "download.record_failed": ["name"],
  /** `name`: the uploaded file's name. */
  "upload.not_stored": ["name"],
  /**
   * A stored blob is not what its name says (found by a download, an upload of the same
   * content, or a scrub) and was quarantined. `name`: a file whose content it is; sizes in bytes.
   */
  "blob.wrong_size": ["name", "found", "expected"],
  "blob.wrong_content": ["name"],
  "blob.missing": ["name"],
  /** A sender's daily upload allowance ran out (recorded once per address and day). */
  "upload.allowance_used": [],
  /**
   * A parcel was locked after `attempts` wrong passwords; `name`: its first file's name,
   * `files`: how many it holds.
   */
  "pickup.parcel_locked": ["name", "attempts", "files?"],
  /** One device may not try codes for a while after too many wrong codes or passwords. */
  "pickup.client_blocked": ["minutes"],
  /** Too many wrong codes across the service: only pickups in progress go on for a while. */
  "pickup.service_blocked": ["minutes"],
  "blob.unreadable": ["name"],
  /** A scrub of the stored blobs stopped before its end. */
  "verify.failed": [],
} as const satisfies ErrorRegistry;

/** The proxy service's problems. */
export const PROXY_PROBLEMS = {
  /** The core did not start with the service (it was running at the last shutdown). */
  "core.did_not_start": ["reason_code?"],
  "core.close_failed": [],
  /** The core stopped by itself; `exit_code` or `signal` says how, when known. */
  "core.exited": ["exit_code?", "signal?"],
  "core.auto_restart_failed": [],
  /** The core was started again after it stopped, but did not come back fully. */
  "core.restart_partial": ["reason_code?"],
  /** The core wrote an error line to its own output (kept in the log file, as `message`). */
  "core.log_error": [],
  /** An install's new core did not start, and the previous one put back did not start either. */
  "install.restore_failed": [],
  /** Undoing an unconfirmed settings change (or the core's restart after it) failed. */
  "probation.rollback_failed": ["reason_code?"],
  /** `name`: the subscription's name as the operator gave it. */
  "subscription.scheduled_refresh_failed": ["name", "reason_code?"],
  /** A refresh asked for in the console failed (the previous nodes are kept). */
  "subscription.manual_refresh_failed": ["name", "reason_code?"],
  /** Start, restart or stop (`action`) asked for in the console failed. */
  "control.failed": ["action?", "reason_code?"],
  /** Installing the latest core, or going back to the previous one, failed (nothing changed). */
  "install.failed": ["reason_code?"],
  "install.rollback_failed": ["reason_code?"],
  /** Updating the rules' data files failed (the previous set is kept). */
  "geodata.update_failed": ["reason_code?"],
  /** Asking the release server for a newer core failed. */
  "updates.check_failed": ["reason_code?"],
  /** Console sign-in refused for one device after `attempts` wrong passwords. */
  "auth.sign_in_blocked": ["attempts", "minutes"],
  /** An unconfirmed settings change was undone at its deadline, or when the service started. */
  "probation.undone_at_deadline": [],
  "probation.undone_at_start": [],
  /** A device's policy (its address changed) could not be applied to the core. */
  "devices.apply_failed": ["reason_code?"],
  /** The traffic counted could not be written (kept in memory and tried again). */
  "devices.write_failed": [],
  /** The makers of new devices' MAC addresses could not be looked up. */
  "devices.vendors_failed": [],
} as const satisfies ErrorRegistry;

type AllProblems = typeof COMMON_PROBLEMS & typeof PARCEL_PROBLEMS & typeof PROXY_PROBLEMS;

export type CommonProblemCode = keyof typeof COMMON_PROBLEMS;
export type ParcelProblemCode = CommonProblemCode | keyof typeof PARCEL_PROBLEMS;
export type ProxyProblemCode = CommonProblemCode | keyof typeof PROXY_PROBLEMS;
/** Every code a service records. */
export type ProblemCode = keyof AllProblems & string;

type Names<C extends ProblemCode> = AllProblems[C][number];
type RequiredName<N> = N extends `${string}?` ? never : N;
type OptionalName<N> = N extends `${infer B}?` ? B : never;

/** The values a problem's sentence names, as its registry entry declares them. */
export type ProblemParamsOf<C extends ProblemCode> = {
  [K in RequiredName<Names<C>>]: ParamValue;
} & { [K in OptionalName<Names<C>>]?: ParamValue };

/** What a call site gives besides the code and the sentence: the params, when it declares any. */
export type ProblemArgs<C extends ProblemCode, Base> = [RequiredName<Names<C>>] extends [never]
  ? [fields?: Base & { params?: ProblemParamsOf<C> }]
  : [fields: Base & { params: ProblemParamsOf<C> }];

/** A problem as the line form of the log takes it (`log("...", problem("warn", ...))`). */
export interface LineProblem {
  level: "warn" | "error";
  code: ProblemCode;
  params: ErrorParams;
  err?: unknown;
}

/**
 * Names a warning or an error for a module that logs through the plain line form; the code
 * and its params are checked against the registries here.
 */
export function problem<C extends ProblemCode>(
  level: "warn" | "error",
  code: C,
  ...rest: ProblemArgs<C, { err?: unknown }>
): LineProblem {
  const fields: { params?: ErrorParams; err?: unknown } = rest[0] ?? {};
  return { level, code, params: fields.params ?? {}, err: fields.err };
}
