import { createHash } from "node:crypto";
import { Readable, Transform } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { z } from "zod";
import { DomainError } from "../../domain-errors.js";
import { BodyTooLarge, discardBody, readLimited } from "../system/limited-body.js";
import { streamToFile } from "./stream-to-file.js";

/** What the release document (GitHub's release JSON) must hold for an install. */
const releaseSchema = z.object({
  tag_name: z.string().min(1).max(100),
  html_url: z.string().optional(),
  assets: z
    .array(
      z.object({
        name: z.string(),
        browser_download_url: z.string(),
        size: z.number().optional(),
        digest: z.string().nullish(),
      }),
    )
    .default([]),
});
export type Release = z.infer<typeof releaseSchema>;
export type ReleaseAsset = Release["assets"][number];

/** A release document larger than this is not one (GitHub's, with every asset, is ~300 KB). */
const RELEASE_DOC_LIMIT = 4 * 1024 * 1024;

function isTimeout(err: unknown): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  return name === "TimeoutError" || name === "AbortError";
}

/** 502 for a source that cannot be reached or does not answer in time. */
function unreachable(err: unknown, what: string, timeoutMs: number): DomainError {
  if (isTimeout(err)) {
    return new DomainError(
      "upstream",
      "install.timeout",
      `The ${what} did not arrive within ${Math.ceil(timeoutMs / 1000)} s`,
      { params: { seconds: Math.ceil(timeoutMs / 1000) }, cause: err },
    );
  }
  return new DomainError("upstream", "install.unreachable", `The ${what} could not be reached`, {
    cause: err,
  });
}

async function get(url: string, what: string, signal: AbortSignal, timeoutMs: number) {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DomainError(
      "upstream",
      "install.bad_release",
      "The release document names an invalid address",
    );
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw new DomainError(
      "upstream",
      "install.bad_release",
      "The release document names an invalid address",
    );
  }
  let res: Response;
  try {
    res = await fetch(parsed, {
      headers: { Accept: "application/vnd.github+json, */*", "User-Agent": "Gatehouse" },
      redirect: "follow",
      signal,
    });
  } catch (err) {
    throw unreachable(err, what, timeoutMs);
  }
  if (res.status !== 200) {
    await discardBody(res);
    throw new DomainError(
      "upstream",
      "install.http_status",
      `The ${what} answered HTTP ${res.status}`,
      {
        params: { status: res.status },
      },
    );
  }
  return res;
}

/** Reads the release document at `url` (GitHub's release JSON). */
export async function fetchReleaseDocument(url: string, timeoutMs: number): Promise<Release> {
  const signal = AbortSignal.timeout(timeoutMs);
  const res = await get(url, "release document", signal, timeoutMs);
  let text: string;
  try {
    text = (await readLimited(res, RELEASE_DOC_LIMIT)).toString("utf8");
  } catch (err) {
    if (isTimeout(err)) throw unreachable(err, "release document", timeoutMs);
    const why = err instanceof BodyTooLarge ? " (it is larger than 4 MiB)" : "";
    throw new DomainError(
      "upstream",
      "install.bad_release",
      `The release document could not be read${why}`,
      { cause: err },
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw new DomainError("upstream", "install.bad_release", "The release document is not JSON", {
      cause: err,
    });
  }
  const parsed = releaseSchema.safeParse(body);
  if (!parsed.success) {
    throw new DomainError(
      "upstream",
      "install.bad_release",
      "The release document names no version",
    );
  }
  return parsed.data;
}

export interface DownloadOptions {
  timeoutMs: number;
  maxBytes: number;
  /** Called as bytes arrive (for the console's progress). */
  onProgress?: (done: number) => void;
}

export function tooLarge(limit: number): DomainError {
  return new DomainError(
    "invalid",
    "install.too_large",
    `The core's archive is larger than ${Math.round(limit / 1024 / 1024)} MiB`,
    { params: { limit } },
  );
}

/**
 * Streams the asset into `file`, counting and hashing as it comes; more than `maxBytes` stops
 * the download. Resolves with the SHA-256 (hex) of what was written.
 */
export async function downloadAsset(
  asset: ReleaseAsset,
  file: string,
  opts: DownloadOptions,
): Promise<string> {
  const signal = AbortSignal.timeout(opts.timeoutMs);
  const res = await get(asset.browser_download_url, "core's archive", signal, opts.timeoutMs);
  const declared = Number(res.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > opts.maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw tooLarge(opts.maxBytes);
  }
  const hash = createHash("sha256");
  let done = 0;
  const count = new Transform({
    transform(chunk: Buffer, _enc, next) {
      done += chunk.length;
      if (done > opts.maxBytes) return next(tooLarge(opts.maxBytes));
      hash.update(chunk);
      opts.onProgress?.(done);
      next(null, chunk);
    },
  });
  if (!res.body)
    throw new DomainError("upstream", "install.unreachable", "The core's archive was empty");
  const body = Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
  try {
    await streamToFile([body, count], file, 0o600, signal);
  } catch (err) {
    if (err instanceof DomainError) throw err;
    throw unreachable(err, "core's archive", opts.timeoutMs);
  }
  return hash.digest("hex");
}
