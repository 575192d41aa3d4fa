import type { CodedArgs, ErrorParams, ProxyErrorCode } from "../../http/error-codes.js";

/** The codes a subscription download or read can fail with. */
export type SubscriptionCode = Extract<ProxyErrorCode, `subscription.${string}`>;

/**
 * A subscription could not be downloaded or read. `message` is shown to the administrator;
 * `code` and `params` let the console say it in the reader's language, and are kept with the
 * subscription as its last error.
 */
export class SubscriptionError<C extends SubscriptionCode = SubscriptionCode> extends Error {
  readonly code: C;
  readonly params: ErrorParams;

  constructor(code: C, message: string, ...rest: CodedArgs<C, { cause?: unknown }>) {
    const options: { cause?: unknown; params?: ErrorParams } = rest[0] ?? {};
    super(message, { cause: options.cause });
    this.name = "SubscriptionError";
    this.code = code;
    this.params = options.params ?? {};
  }

  /** Rebuilds an error that crossed a thread boundary as plain data. */
  static revive(code: string, message: string, params: ErrorParams): SubscriptionError {
    // The code and params were checked where the error was made, inside the worker.
    const known = code.startsWith("subscription.") ? code : "subscription.reader_failed";
    return new SubscriptionError(known as "subscription.format", message, { params });
  }
}
