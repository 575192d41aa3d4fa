import { SubscriptionError } from "./errors.js";

/**
 * The download's failures, each a sentence and a stable code (the console says them in the
 * reader's language); the network library's own words stay in `cause`, for the log.
 */

function formatBytes(n: number): string {
  const mib = n / (1024 * 1024);
  if (Number.isInteger(mib)) return `${mib} MiB`;
  return `${n} bytes`;
}

export function tooLarge(maxBytes: number): SubscriptionError {
  return new SubscriptionError(
    "subscription.too_large",
    `The subscription is larger than ${formatBytes(maxBytes)}`,
    { params: { limit: maxBytes } },
  );
}

export function timeoutFailure(timeoutMs: number, cause: unknown): SubscriptionError {
  const s = Number((timeoutMs / 1000).toFixed(3));
  return new SubscriptionError(
    "subscription.timeout",
    `The subscription server did not answer within ${s} second${s === 1 ? "" : "s"}`,
    { params: { seconds: s }, cause },
  );
}

/** An address the subscription (`base` absent) or a redirect (`base` given) may not use. */
export function badTarget(base: URL | undefined, why: "invalid" | "scheme"): SubscriptionError {
  if (why === "invalid")
    return base
      ? new SubscriptionError(
          "subscription.redirect_invalid",
          "The subscription server redirected to an invalid address",
        )
      : new SubscriptionError("subscription.url_invalid", "The subscription URL is not valid");
  return base
    ? new SubscriptionError(
        "subscription.redirect_scheme",
        "The subscription server redirected to an address that is not http or https",
      )
    : new SubscriptionError(
        "subscription.url_scheme",
        "The subscription URL must use http or https",
      );
}

/** A socket or TLS failure of the download, by the system's error code. */
export function networkFailure(err: unknown): SubscriptionError {
  const code = (err as { code?: string }).code ?? "";
  const cause = { cause: err };
  if (code === "ENOTFOUND" || code === "EAI_AGAIN")
    return new SubscriptionError(
      "subscription.dns",
      "The subscription server's name could not be resolved",
      cause,
    );
  if (code === "ECONNREFUSED")
    return new SubscriptionError(
      "subscription.refused",
      "The subscription server refused the connection",
      cause,
    );
  if (code.startsWith("ERR_TLS") || code.includes("CERT"))
    return new SubscriptionError(
      "subscription.tls",
      "The subscription server's certificate is not trusted",
      cause,
    );
  if (code === "ECONNRESET" || code === "EPIPE" || code === "ERR_STREAM_PREMATURE_CLOSE")
    return new SubscriptionError(
      "subscription.closed",
      "The subscription server closed the connection before the download finished",
      cause,
    );
  return new SubscriptionError(
    "subscription.unreachable",
    "The subscription server could not be reached",
    cause,
  );
}
