import { apiError, mapFetchError } from "./answers.js";
import { CoreTimeoutError, CoreUnreachableError } from "./errors.js";
import type { StreamOptions } from "./core-shapes.js";
import { NdjsonSplitter } from "./ndjson.js";

/**
 * Reads one of the core's newline-delimited JSON streams (`/traffic`, `/logs`) until it ends.
 * Resolves when the core ends it cleanly or the caller aborts; rejects with a typed error
 * otherwise. Only the answer's headers have a deadline, the stream itself has none.
 */
export async function readNdjson(
  url: string,
  headers: Record<string, string>,
  onItem: (item: unknown) => void,
  opts: StreamOptions,
  defaultTimeoutMs: number,
): Promise<void> {
  const connectTimeoutMs = opts.connectTimeoutMs ?? defaultTimeoutMs;
  const ctl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctl.abort();
  }, connectTimeoutMs);
  const onAbort = () => ctl.abort();
  if (opts.signal?.aborted) ctl.abort();
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    let res: Response;
    try {
      res = await fetch(url, { headers, signal: ctl.signal });
    } catch (err) {
      if (opts.signal?.aborted) return;
      if (timedOut) throw new CoreTimeoutError(undefined, { cause: err });
      throw mapFetchError(err, connectTimeoutMs);
    } finally {
      clearTimeout(timer);
    }
    if (!res.ok) throw await apiError(res);
    if (!res.body) return;
    const splitter = new NdjsonSplitter();
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        for (const item of splitter.push(value)) onItem(item);
      }
      for (const item of splitter.end()) onItem(item);
    } catch (err) {
      if (opts.signal?.aborted) return;
      throw new CoreUnreachableError("The proxy core's stream broke off", { cause: err });
    }
  } finally {
    opts.signal?.removeEventListener("abort", onAbort);
  }
}
