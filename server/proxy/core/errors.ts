import { DomainError } from "../../domain-errors.js";
import { PORT_IN_USE, portInUseMessage } from "./port-check.js";

/** The core's controller could not be reached (refused, reset, DNS, ...). */
export class CoreUnreachableError extends Error {
  constructor(message = "The proxy core cannot be reached", options?: { cause?: unknown }) {
    super(message, options);
    this.name = "CoreUnreachableError";
  }
}

/** The controller did not answer within the call's deadline. */
export class CoreTimeoutError extends Error {
  constructor(message = "The proxy core did not answer in time", options?: { cause?: unknown }) {
    super(message, options);
    this.name = "CoreTimeoutError";
  }
}

/** The controller answered with an error status; `message` is the core's own message. */
export class CoreApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message || `The proxy core answered ${status}`);
    this.name = "CoreApiError";
    this.status = status;
  }
}

/** True for errors that mean "the core is not there" rather than "the core said no". */
export function isCommunicationError(err: unknown): boolean {
  return err instanceof CoreUnreachableError || err instanceof CoreTimeoutError;
}

/**
 * Why the core did not answer, as a sentence and a stable code. A controller that answers
 * 401 is not ours: another program (another core, with its own secret) holds the port.
 */
export function coreProblem(err: unknown, port: number): { message: string; code: string } {
  if (err instanceof CoreApiError && err.status === 401)
    return { message: portInUseMessage(port), code: PORT_IN_USE };
  if (err instanceof CoreUnreachableError)
    return { message: errorMessage(err), code: "core.unreachable" };
  if (err instanceof CoreTimeoutError) return { message: errorMessage(err), code: "core.timeout" };
  return { message: errorMessage(err), code: "core.error" };
}

export function errorMessage(err: unknown): string {
  return err instanceof Error && err.message ? err.message : String(err);
}

/**
 * No live data from the core (down, refused, timed out, unauthorised): one sentence, which the
 * console says once in the reader's language (by its code); the socket's own words stay in
 * the cause.
 */
export function coreUnavailable(cause?: unknown): DomainError {
  return new DomainError(
    "unavailable",
    "core.unreachable",
    "The proxy core is not running or cannot be reached",
    { cause },
  );
}
