// The small build's check: the inbox page a phone opens sends with this uploader too.
import { UploadedFileCheckSchema } from "../../../server/contract/parcel-public.js";
import { UNEXPECTED_ANSWER } from "../../shared/api-client.js";
import { ApiError, api, serviceOrigin } from "../api.js";

export interface PutHandle {
  abort(): void;
  done: Promise<void>;
}

/**
 * Streams one file with `PUT /uploads/{id}/files/{file}`. XMLHttpRequest because fetch has no
 * upload progress; the File is sent as the body directly, so the browser reads it from disk as
 * it goes and nothing is loaded into memory. Rejects with ApiError (0 = unreachable) or an
 * AbortError DOMException.
 */
export function putFile(
  parcelId: string,
  fileId: string,
  body: Blob,
  token: string,
  onProgress: (loaded: number) => void,
): PutHandle {
  const xhr = new XMLHttpRequest();
  const done = new Promise<void>((resolve, reject) => {
    xhr.open(
      "PUT",
      api.url("PUT /uploads/:id/files/:file", { params: { id: parcelId, file: fileId } }),
    );
    // Empty in the desktop app when the token is the app's to attach (see ui/tokens.ts).
    if (token) xhr.setRequestHeader("Authorization", `Bearer ${token}`);
    xhr.setRequestHeader("Content-Type", "application/octet-stream");
    xhr.setRequestHeader("Accept", "application/json");
    for (const [k, v] of Object.entries(serviceOrigin())) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => onProgress(e.loaded);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        let stored = false;
        try {
          stored = UploadedFileCheckSchema.parse(JSON.parse(xhr.responseText)).state === "ready";
        } catch {
          // not the contract's answer: said below
        }
        if (!stored) {
          reject(
            new ApiError(
              xhr.status,
              "The service answered in a form this page does not understand.",
              {
                code: UNEXPECTED_ANSWER,
              },
            ),
          );
          return;
        }
        onProgress(body.size);
        resolve();
        return;
      }
      reject(errorOf(xhr));
    };
    xhr.onerror = () => reject(new ApiError(0, "The service could not be reached."));
    xhr.onabort = () => reject(new DOMException("Upload cancelled", "AbortError"));
    xhr.send(body);
  });
  return { abort: () => xhr.abort(), done };
}

/** The service's error answer to a request sent with XMLHttpRequest. */
export function errorOf(xhr: XMLHttpRequest): ApiError {
  let parsed: Record<string, unknown> = {};
  try {
    const value: unknown = JSON.parse(xhr.responseText);
    if (value && typeof value === "object") parsed = value as Record<string, unknown>;
  } catch {
    // not JSON
  }
  const retry = Number(xhr.getResponseHeader("Retry-After"));
  return new ApiError(
    xhr.status,
    typeof parsed.error === "string" ? parsed.error : `HTTP ${xhr.status}`,
    parsed,
    Number.isFinite(retry) && retry > 0 ? retry : null,
  );
}
