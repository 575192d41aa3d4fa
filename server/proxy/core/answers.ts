import { BodyTooLarge, readLimited } from "../system/limited-body.js";
import { CoreApiError, CoreTimeoutError, CoreUnreachableError } from "./errors.js";

/** How the controller client reads the core's answers and turns its failures into errors. */

function isAbort(err: unknown, name: string): boolean {
  return typeof err === "object" && err !== null && (err as { name?: unknown }).name === name;
}

export function mapFetchError(err: unknown, timeoutMs: number): Error {
  if (isAbort(err, "TimeoutError")) {
    return new CoreTimeoutError(`The proxy core did not answer within ${timeoutMs} ms`, {
      cause: err,
    });
  }
  if (isAbort(err, "AbortError")) return err as Error;
  const code = (err as { cause?: { code?: string } }).cause?.code;
  return new CoreUnreachableError(`The proxy core cannot be reached${code ? ` (${code})` : ""}`, {
    cause: err,
  });
}

/** An error answer of the core is a short JSON message; more than this is not read. */
const ERROR_ANSWER_LIMIT = 64 * 1024;

export async function apiError(res: Response): Promise<CoreApiError> {
  let message = "";
  try {
    const text = (await readLimited(res, ERROR_ANSWER_LIMIT)).toString("utf8");
    try {
      const parsed = JSON.parse(text) as { message?: unknown };
      message = typeof parsed.message === "string" ? parsed.message : text;
    } catch {
      message = text;
    }
  } catch {
    // the status alone has to do
  }
  return new CoreApiError(res.status, message.trim().slice(0, 500));
}

/** The answer's text, refused (unread) once it runs past `max` bytes. */
export async function limitedText(res: Response, max: number): Promise<string> {
  try {
    return (await readLimited(res, max)).toString("utf8");
  } catch (err) {
    if (!(err instanceof BodyTooLarge)) throw err;
    throw new CoreApiError(res.status, `The proxy core's answer is larger than ${max} bytes`);
  }
}

export function num(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}
