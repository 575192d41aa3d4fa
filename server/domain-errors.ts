import type { CodedArgs, ErrorCode, ErrorParams } from "./http/error-codes.js";

/**
 * What went wrong, in the domain's own words. Domain functions (`domain/`, `repos/`,
 * `storage/`, the cleanup and the core layer) throw these and never know about HTTP. Each
 * service decides once which status each kind is answered with (its status table, given to
 * the error handler): `server/parcel/error-status.ts`, `server/proxy/error-status.ts`.
 */
export type DomainErrorKind =
  /** The input breaks a rule of the domain (a missing password, a bad name). */
  | "invalid"
  /** A credential is missing or wrong (a parcel password, a pickup grant). */
  | "unauthorized"
  /** The caller is known but may not do this. */
  | "forbidden"
  /** The thing named does not exist (or no longer does, when that is all the caller may learn). */
  | "not_found"
  /** The request does not fit the current state (already published, still uploading). */
  | "conflict"
  /** The thing existed and has ended for good (expired, withdrawn, no downloads left). */
  | "gone"
  /** A size limit of a single request (a file larger than the policy allows). */
  | "too_large"
  /** Locked after too many wrong answers (a parcel's password). */
  | "locked"
  /** Too many attempts from one caller: counted and refused for a while. */
  | "rate_limited"
  /** A budget of the service is used up (files, bytes, disk). */
  | "limit"
  /** Something the service depends on failed (the proxy core, a subscription's server). */
  | "upstream"
  /** Something the request needs is not there now (the proxy core is not running). */
  | "unavailable"
  /** The client was too slow (an upload that stalled). */
  | "timeout"
  /** The service failed on its own (a file that cannot be read). */
  | "failed";

/** The HTTP status a service answers for each kind of domain error. */
export type StatusTable = Readonly<Record<DomainErrorKind, number>>;

/** The usual status of each kind; a service's own table starts from it. */
export const DEFAULT_STATUS: StatusTable = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  too_large: 413,
  locked: 423,
  rate_limited: 429,
  limit: 507,
  upstream: 502,
  unavailable: 503,
  timeout: 408,
  failed: 500,
};

/** The status of a domain error's kind in a service's table (the usual one by default). */
export function statusOfKind(kind: DomainErrorKind, table: StatusTable = DEFAULT_STATUS): number {
  return table[kind];
}

/** What a DomainError may carry besides its code: extra answer members, headers, a cause. */
export interface DomainErrorOptions {
  /** More members of the answer (e.g. `password_required`); never `error`, `code` or `params`. */
  extra?: Record<string, unknown> & { error?: never; code?: never; params?: never };
  /** Answer headers that belong to the failure itself (`Retry-After` of a lockout). */
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * A failure of the domain with a stable code and the values its sentence names. The message
 * is the English sentence; `code` lets a page say it in another language.
 */
export class DomainError<C extends ErrorCode = ErrorCode> extends Error {
  readonly kind: DomainErrorKind;
  readonly code: C;
  readonly params: ErrorParams;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    kind: DomainErrorKind,
    code: C,
    message: string,
    ...rest: CodedArgs<C, DomainErrorOptions>
  ) {
    const options: DomainErrorOptions & { params?: ErrorParams } = rest[0] ?? {};
    super(message, { cause: options.cause });
    this.name = "DomainError";
    this.kind = kind;
    this.code = code;
    this.params = options.params ?? {};
    this.extra = options.extra ?? {};
    this.headers = options.headers ?? {};
  }

  /**
   * Passes on a code and params that were checked where they were first made (an inner
   * refusal wrapped with more context, a failure coded by a lower layer), so they are not
   * re-typed here; the code is still one of the registry's.
   */
  static carrying(
    kind: DomainErrorKind,
    code: ErrorCode,
    message: string,
    params: ErrorParams,
    options: DomainErrorOptions = {},
  ): DomainError {
    return new DomainError(kind, code as "server.internal", message, { ...options, params });
  }
}

/** Whether an error (or one in its cause chain) says the disk or the database is full. */
export function isDiskFull(err: unknown): boolean {
  let cur: unknown = err;
  for (let depth = 0; cur && depth < 5; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (code === "ENOSPC" || code === "EDQUOT" || code === "SQLITE_FULL") return true;
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}
