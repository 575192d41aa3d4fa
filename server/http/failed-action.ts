import type { Response } from "express";
import { DomainError, type DomainErrorKind } from "../domain-errors.js";
import { HttpError } from "./errors.js";
import { requestIdOf } from "./request-log.js";
import type { LogFields } from "../log.js";

/** What a recorded failure carries besides its code: the request and the error behind it. */
export interface FailureFields extends LogFields {
  requestId: string | null;
  err: unknown;
}

/**
 * Whether a failed action belongs among the recent problems: it was tried and did not work
 * (the core refused, a server did not answer, a check failed; 400, 502, 503, 504). Not an
 * unauthorised request, an unknown id, or one refused because the same action is running
 * (those are said on the spot), nor a failure of the service itself (500, 507), which the
 * error handler records.
 */
export function worthRecording(err: unknown): boolean {
  if (err instanceof DomainError) return RECORDED_KINDS.has(err.kind);
  return err instanceof HttpError && [400, 502, 503, 504].includes(err.status);
}

/** The kinds of domain error answered 400, 502 and 503: tried, and it did not work. */
const RECORDED_KINDS = new Set<DomainErrorKind>(["invalid", "upstream", "unavailable"]);

/**
 * A person's action that failed: recorded (by `record`, with its problem code) among the
 * service's recent problems when it is worth it, with the request's id, so the dashboard lists
 * it in the reader's language; the error then answers the request as usual.
 */
export function recordFailure(
  res: Response,
  err: unknown,
  record: (fields: FailureFields) => void,
): void {
  if (worthRecording(err)) record({ requestId: requestIdOf(res) || null, err });
}
