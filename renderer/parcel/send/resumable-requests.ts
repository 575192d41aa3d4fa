import { UNEXPECTED_ANSWER } from "../../shared/api-client.js";
import { ApiError, api, serviceOrigin } from "../api.js";
import { errorOf } from "./uploader.js";

/**
 * The two requests of resumable uploads (tus 1.0 core): `HEAD` says how many bytes of a file
 * the service has stored, `PATCH` appends from exactly there.
 */

/** Whether the service keeps partly received files (`HEAD`/`PATCH`), or only takes whole ones. */
export const NO_RESUME = Symbol("no-resume");

/**
 * An empty token sends no `Authorization`: in the desktop app a kept token never reaches the
 * page, and the app attaches it to the window's request itself.
 */
function ownerHeaders(token: string): Record<string, string> {
  return {
    ...(token ? { Authorization: `Bearer ${token}` } : {}),
    "Tus-Resumable": "1.0.0",
    ...serviceOrigin(),
  };
}

/** `Upload-Offset` as a byte count, or null when missing or not one. */
export function offsetOf(value: string | null): number | null {
  if (value === null || !/^\d+$/.test(value.trim())) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : null;
}

/**
 * `HEAD …/files/{file}`: the bytes the service has safely stored. NO_RESUME when the service
 * has no such route (404/405): it then takes only whole files, with PUT. A missing file or an
 * ended session answers the same way, and the PUT then says so in its own words.
 */
export async function storedOffset(
  parcelId: string,
  fileId: string,
  token: string,
  signal: AbortSignal,
): Promise<number | typeof NO_RESUME> {
  let res: Response;
  try {
    res = await fetch(
      api.url("HEAD /uploads/:id/files/:file", { params: { id: parcelId, file: fileId } }),
      {
        method: "HEAD",
        headers: ownerHeaders(token),
        cache: "no-store",
        signal,
      },
    );
  } catch (err) {
    if (signal.aborted) throw new DOMException("Upload cancelled", "AbortError");
    throw new ApiError(0, err instanceof Error ? err.message : "The service could not be reached.");
  }
  if (res.status === 404 || res.status === 405) return NO_RESUME;
  const offset = offsetOf(res.headers.get("Upload-Offset"));
  if (res.ok && offset !== null) return offset;
  const retry = Number(res.headers.get("Retry-After"));
  throw new ApiError(
    res.ok ? 502 : res.status,
    `HTTP ${res.status}`,
    res.ok ? { code: UNEXPECTED_ANSWER } : {},
    Number.isFinite(retry) && retry > 0 ? retry : null,
  );
}

/** Bytes of a file the service has stored, or null when it cannot say (now, or at all). */
export async function storedBytes(
  parcelId: string,
  fileId: string,
  token: string,
): Promise<number | null> {
  try {
    const n = await storedOffset(parcelId, fileId, token, new AbortController().signal);
    return n === NO_RESUME ? null : n;
  } catch {
    return null;
  }
}

/**
 * `PATCH …/files/{file}` with the file's bytes from `offset` (a slice: still read from disk as
 * it goes). Answers the new offset. A connection that stops moving for `stallMs` while the body
 * is still going out counts as dropped: browsers may otherwise wait minutes for TCP to give up.
 */
export function patchFrom(
  parcelId: string,
  fileId: string,
  file: Blob,
  offset: number,
  token: string,
  stallMs: number,
  onSent: (loaded: number) => void,
  signal: AbortSignal,
): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    let stall: ReturnType<typeof setTimeout> | undefined;
    let stalled = false;
    const watch = () => {
      clearTimeout(stall);
      stall = setTimeout(() => {
        stalled = true;
        xhr.abort();
      }, stallMs);
    };
    const stop = () => xhr.abort();
    const settle = () => {
      clearTimeout(stall);
      signal.removeEventListener("abort", stop);
    };
    xhr.open(
      "PATCH",
      api.url("PATCH /uploads/:id/files/:file", { params: { id: parcelId, file: fileId } }),
    );
    for (const [k, v] of Object.entries(ownerHeaders(token))) xhr.setRequestHeader(k, v);
    xhr.setRequestHeader("Upload-Offset", String(offset));
    xhr.setRequestHeader("Content-Type", "application/offset+octet-stream");
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.onprogress = (e) => {
      watch();
      onSent(offset + e.loaded);
    };
    // The body is out; the service now hashes and syncs, which may take a while on big files.
    xhr.upload.onload = () => clearTimeout(stall);
    xhr.onload = () => {
      settle();
      const next = offsetOf(xhr.getResponseHeader("Upload-Offset"));
      if (xhr.status >= 200 && xhr.status < 300 && next !== null) resolve(next);
      else if (xhr.status >= 200 && xhr.status < 300)
        reject(
          new ApiError(
            xhr.status,
            "The service answered in a form this page does not understand.",
            {
              code: UNEXPECTED_ANSWER,
            },
          ),
        );
      else reject(errorOf(xhr));
    };
    xhr.onerror = () => {
      settle();
      reject(new ApiError(0, "The service could not be reached."));
    };
    xhr.onabort = () => {
      settle();
      if (stalled) reject(new ApiError(0, "The connection stopped moving."));
      else reject(new DOMException("Upload cancelled", "AbortError"));
    };
    signal.addEventListener("abort", stop);
    if (signal.aborted) {
      xhr.abort();
      return;
    }
    watch();
    xhr.send(file.slice(offset));
  });
}
