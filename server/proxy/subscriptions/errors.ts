/** A subscription could not be downloaded or read; `message` is shown to the administrator. */
export class SubscriptionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SubscriptionError";
  }
}
