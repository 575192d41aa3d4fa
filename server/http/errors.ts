import type { ErrorRequestHandler, RequestHandler, Response } from "express";
import type { LogFields } from "../log.js";
import type { CommonProblemCode } from "../problem-codes.js";
import { DEFAULT_STATUS, DomainError, isDiskFull, type StatusTable } from "../domain-errors.js";

export { isDiskFull };
import type { CodedArgs, ErrorCode, ErrorParams } from "./error-codes.js";
import { requestIdOf } from "./request-log.js";

/** What an HttpError may carry besides its code: headers, extra body members, a cause. */
export interface HttpErrorOptions {
  headers?: Record<string, string>;
  /** More members of the answer (e.g. `password_required`); never `error`, `code` or `params`. */
  extra?: Record<string, unknown> & { error?: never; code?: never; params?: never };
  cause?: unknown;
}

/**
 * An error that maps to an HTTP status. The message is the English sentence shown to the
 * client; `code` names it for pages that say it in another language, and `params` are the
 * values the sentence mentions (never a secret). The code is a required argument checked
 * against the registries, so no answer can go out without one.
 */
export class HttpError<C extends ErrorCode = ErrorCode> extends Error {
  readonly status: number;
  readonly code: C;
  readonly params: ErrorParams;
  readonly headers: Record<string, string>;
  readonly extra: Record<string, unknown>;

  constructor(status: number, code: C, message: string, ...rest: CodedArgs<C, HttpErrorOptions>) {
    const options: HttpErrorOptions & { params?: ErrorParams } = rest[0] ?? {};
    super(message, { cause: options.cause });
    this.name = "HttpError";
    this.status = status;
    this.code = code;
    this.params = options.params ?? {};
    this.headers = options.headers ?? {};
    this.extra = options.extra ?? {};
  }

  /**
   * Passes on a code and params that were checked where they were first made (a subscription
   * failure, an error wrapped with more context), so they are not re-typed here.
   */
  static carrying(
    status: number,
    code: ErrorCode,
    message: string,
    params: ErrorParams,
    options: HttpErrorOptions = {},
  ): HttpError {
    return new HttpError(status, code as "server.internal", message, { ...options, params });
  }
}

/** Answers 404 JSON for any path no router claimed. */
export function notFound(
  message = "No such endpoint",
  code: "request.no_endpoint" | "request.no_page" = "request.no_endpoint",
): RequestHandler {
  return (_req, _res, next) => next(new HttpError(404, code, message));
}

function describeCause(err: unknown): string {
  const parts: string[] = [];
  let cur: unknown = err;
  for (let depth = 0; cur && depth < 5; depth++) {
    if (cur instanceof Error) {
      parts.push(cur.stack ?? `${cur.name}: ${cur.message}`);
      cur = cur.cause;
    } else {
      parts.push(String(cur));
      break;
    }
  }
  return parts.join("\ncaused by: ");
}

/** The part of a service's logger the error handler needs (the problems it records are coded). */
export interface ProblemLog {
  warn(code: CommonProblemCode, message: string, fields: LogFields): void;
  error(code: CommonProblemCode, message: string, fields: LogFields): void;
}

/**
 * Turns thrown errors into `{ error, code, params?, ...extra }` JSON. Express's own body-parser
 * errors carry `status`/`type`; anything else unexpected is logged with its cause chain and
 * answered 500 (`server.internal`).
 * Given a service log, entries carry the request id; given a plain line sink, a sentence.
 * A DomainError is answered with its kind's status in the service's table.
 */
export function errorHandler(
  log: ((line: string) => void) | ProblemLog = (l) => console.error(l),
  statuses: StatusTable = DEFAULT_STATUS,
): ErrorRequestHandler {
  const problem = (
    level: "warn" | "error",
    code: CommonProblemCode,
    message: string,
    res: Response,
    err?: unknown,
    reason?: HttpError | DomainError,
  ) => {
    // Structured: the request id ties it to the request's entry; the cause chain is kept, and
    // the answer's own code says why in the console's list.
    if ("error" in log)
      log[level](code, message, { requestId: requestIdOf(res) || null, err, reason });
    else log(err === undefined ? message : `${message}: ${describeCause(err)}`);
  };
  return (err: unknown, req, res, next) => {
    // The method and the path only: a query string can carry a secret.
    const where = `${req.method} ${req.path}`;
    if (res.headersSent) {
      if (!(err instanceof HttpError) && !(err instanceof DomainError))
        problem(
          "error",
          "request.unexpected",
          `Unexpected error while answering ${where}`,
          res,
          err,
        );
      res.destroy();
      return;
    }
    let status = 500;
    let message = "Internal server error";
    let code: ErrorCode = "server.internal";
    let params: ErrorParams = {};
    let headers: Record<string, string> = {};
    let extra: Record<string, unknown> = {};
    if (err instanceof HttpError || err instanceof DomainError) {
      status = err instanceof DomainError ? statuses[err.kind] : err.status;
      message = err.message;
      code = err.code;
      params = err.params;
      headers = err.headers;
      extra = err.extra;
      // The service failed (500) or ran out of room (507): the operator should hear of it.
      if (status === 500)
        problem(
          "error",
          "request.failed",
          `${where} failed: ${message}`,
          res,
          err.cause ?? err,
          err,
        );
      else if (status === 507)
        problem("warn", "request.no_room", `${where} was refused: ${message}`, res, undefined, err);
    } else if (isBodyParserError(err)) {
      status = err.status;
      ({ message, code } = bodyParserAnswer(err.type));
    } else if (err instanceof URIError) {
      // The router could not percent-decode a path parameter (`/uploads/%ZZ`).
      status = 400;
      message = "The address is not correctly encoded";
      code = "request.bad_encoding";
    } else if (isDiskFull(err)) {
      // The disk (or the database on it) has no room left: the request can be tried again
      // once space is freed, and the operator needs to hear of it.
      status = 507;
      message = "The gateway's disk is full; try again once space has been freed";
      code = "server.disk_full";
      problem("error", "request.disk_full", `${where} failed: the disk is full`, res, err);
    } else {
      problem("error", "request.unexpected", `Unexpected error while answering ${where}`, res, err);
    }
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    // `params` only when the sentence mentions values; extra members follow.
    const body: Record<string, unknown> = { error: message, code };
    if (Object.keys(params).length > 0) body.params = params;
    res.status(status).json({ ...body, ...extra });
    void next;
  };
}

/** The sentence and code for a body-parser error of this type. */
function bodyParserAnswer(type: string): { message: string; code: ErrorCode } {
  if (type === "entity.parse.failed")
    return { message: "The request body is not valid JSON", code: "request.bad_json" };
  if (type === "entity.too.large")
    return { message: "The request body is too large", code: "request.too_large" };
  return { message: "The request body could not be read", code: "request.unreadable" };
}

function isBodyParserError(err: unknown): err is { status: number; type: string } {
  if (typeof err !== "object" || err === null) return false;
  const e = err as { status?: unknown; type?: unknown };
  return (
    typeof e.status === "number" && e.status >= 400 && e.status < 500 && typeof e.type === "string"
  );
}
