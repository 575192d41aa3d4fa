import type { Clock } from "../../clock.js";
import { DomainError } from "../../domain-errors.js";
import type { ProxyErrorCode } from "../../http/error-codes.js";
import { isoNow } from "../types.js";
import { MINUTE_MS } from "../../contract/time-units.js";
import { BodyTooLarge, discardBody, readLimited } from "./limited-body.js";
import type { UpdateReport } from "../../contract/proxy-system.js";

export const DEFAULT_RELEASE_URL = "https://api.github.com/repos/MetaCubeX/mihomo/releases/latest";
export const UPDATE_CACHE_MS = 10 * MINUTE_MS;
/** GitHub's release document, with every asset, is ~300 KB; more is not one. */
export const RELEASE_ANSWER_LIMIT = 4 * 1024 * 1024;

export type { UpdateReport };

function parseVersion(v: string): number[] | null {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:$|[^0-9A-Za-z])/.exec(v.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

/** "latest" / "outdated", or null when either version cannot be read. */
export function compareVersions(current: string, latest: string): "latest" | "outdated" | null {
  const a = parseVersion(current);
  const b = parseVersion(latest);
  if (!a || !b) return null;
  for (let i = 0; i < 3; i++) {
    if (a[i] < b[i]) return "outdated";
    if (a[i] > b[i]) return "latest";
  }
  return "latest";
}

export interface Release {
  latest: string;
  releaseURL: string;
}

/**
 * Why a check failed, as the second half of "The update check failed: ..." and a stable
 * code; the network library's own text stays in `cause` (for the log).
 */
export class UpdateCheckError extends Error {
  constructor(
    message: string,
    readonly code: Extract<ProxyErrorCode, `updates.${string}`>,
    readonly params: Record<string, number> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "UpdateCheckError";
  }
}

/**
 * A failed update check as it is answered (502): its own coded sentence, else that the
 * release server could not be reached. The network library's own words stay in the cause.
 */
export function updateCheckFailed(cause: unknown): DomainError {
  const known = cause instanceof UpdateCheckError;
  // The code and its values were checked where the failure was made.
  return DomainError.carrying(
    "upstream",
    known ? cause.code : "updates.unreachable",
    `The update check failed: ${known ? cause.message : "the release server could not be reached"}`,
    known ? cause.params : {},
    { cause },
  );
}

function isTimeout(err: unknown): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  return name === "TimeoutError" || name === "AbortError";
}

/** Fetches GitHub's latest-release JSON `{tag_name, html_url}`. */
export async function fetchRelease(url: string, timeoutMs = 10_000): Promise<Release> {
  let res: Response;
  try {
    res = await fetch(url, {
      headers: { Accept: "application/vnd.github+json", "User-Agent": "Gatehouse" },
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "follow",
    });
  } catch (err) {
    if (isTimeout(err)) {
      throw new UpdateCheckError(
        "the release server did not answer in time",
        "updates.timeout",
        {},
        { cause: err },
      );
    }
    throw new UpdateCheckError(
      "the release server could not be reached",
      "updates.unreachable",
      {},
      { cause: err },
    );
  }
  if (!res.ok) {
    await discardBody(res);
    throw new UpdateCheckError(
      `the release server answered with HTTP status ${res.status}`,
      "updates.http_status",
      { status: res.status },
    );
  }
  let body: { tag_name?: unknown; html_url?: unknown };
  try {
    const text = (await readLimited(res, RELEASE_ANSWER_LIMIT)).toString("utf8");
    body = JSON.parse(text) as { tag_name?: unknown; html_url?: unknown };
  } catch (err) {
    if (err instanceof BodyTooLarge) {
      throw new UpdateCheckError(
        `the release server's answer is larger than ${RELEASE_ANSWER_LIMIT / 1048576} MiB`,
        "updates.too_large",
        { mib: RELEASE_ANSWER_LIMIT / 1048576 },
        { cause: err },
      );
    }
    if (isTimeout(err)) {
      throw new UpdateCheckError(
        "the release server did not answer in time",
        "updates.timeout",
        {},
        { cause: err },
      );
    }
    throw new UpdateCheckError(
      "the release server's answer could not be read",
      "updates.bad_answer",
      {},
      { cause: err },
    );
  }
  if (typeof body?.tag_name !== "string" || !body.tag_name) {
    throw new UpdateCheckError(
      "the release server's answer names no version",
      "updates.bad_answer",
    );
  }
  return {
    latest: body.tag_name,
    releaseURL: typeof body.html_url === "string" ? body.html_url : "",
  };
}

/** Caches a successful check for 10 minutes (by the injected clock); failures are not cached. */
export class UpdateChecker {
  private cached: { release: Release; at: number } | null = null;

  constructor(
    private readonly url: string,
    private readonly clock: Clock,
  ) {}

  async check(current: string): Promise<UpdateReport> {
    const now = this.clock.now();
    if (!this.cached || now - this.cached.at >= UPDATE_CACHE_MS || now < this.cached.at) {
      this.cached = { release: await fetchRelease(this.url), at: now };
    }
    const { release, at } = this.cached;
    return {
      current,
      latest: release.latest,
      status: compareVersions(current, release.latest),
      checkedAt: isoNow(at),
      releaseURL: release.releaseURL,
    };
  }
}
