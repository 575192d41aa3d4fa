import http from "node:http";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { Readable } from "node:stream";
import type { Harness, Reply } from "./parcel-harness.js";

export interface Created {
  id: string;
  manage_token: string;
  files: Array<{ id: string; name: string; size: number }>;
  expires_at: number;
}

/** `POST /uploads` that must succeed; files given as name -> size. */
export async function createUpload(
  h: Harness,
  files: Record<string, number>,
  extra: Record<string, unknown> = {},
): Promise<Created> {
  const r = await h.request("POST", "/uploads", {
    body: { files: Object.entries(files).map(([name, size]) => ({ name, size })), ...extra },
  });
  if (r.status !== 201) throw new Error(`POST /uploads answered ${r.status}: ${r.text}`);
  return r.json as Created;
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** PUT of a whole buffer with the manage token. */
export function putBytes(h: Harness, up: Created, index: number, body: Buffer): Promise<Reply> {
  return h.request("PUT", `/uploads/${up.id}/files/${up.files[index].id}`, {
    raw: body,
    headers: bearer(up.manage_token),
  });
}

/** Uploads every file with deterministic content and publishes; returns the publish reply. */
export async function uploadAndPublish(h: Harness, up: Created, fill = 0x61): Promise<Reply> {
  for (let i = 0; i < up.files.length; i++) {
    const r = await putBytes(h, up, i, Buffer.alloc(up.files[i].size, fill + i));
    if (r.status !== 200) throw new Error(`PUT answered ${r.status}: ${r.text}`);
  }
  return h.request("POST", `/uploads/${up.id}/publish`, { headers: bearer(up.manage_token) });
}

export interface StreamResult {
  status: number;
  json: unknown;
  headers: http.IncomingHttpHeaders;
}

/**
 * PUT whose body comes from a Readable (chunked unless `contentLength` is given). With
 * `abortAfter`, the socket is destroyed once that many bytes were written and the promise
 * resolves with status 0.
 */
export function streamPut(
  h: Harness,
  path: string,
  source: Readable,
  opts: { headers?: Record<string, string>; contentLength?: number; abortAfter?: number } = {},
): Promise<StreamResult> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      host: `127.0.0.1:${h.port}`,
      origin: h.origin,
      ...(opts.headers ?? {}),
    };
    if (opts.contentLength !== undefined) headers["content-length"] = String(opts.contentLength);
    const req = http.request({
      host: "127.0.0.1",
      port: h.port,
      method: "PUT",
      path: `/api/v1${path}`,
      headers,
    });
    let sent = 0;
    let settled = false;
    const done = (r: StreamResult) => {
      if (settled) return;
      settled = true;
      resolve(r);
    };
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        done({ status: res.statusCode ?? 0, json, headers: res.headers });
      });
    });
    req.on("error", (err) => {
      if (opts.abortAfter !== undefined) done({ status: 0, json: undefined, headers: {} });
      else if (!settled) reject(err);
    });
    let aborting = false;
    source.on("data", (chunk: Buffer) => {
      if (aborting) return;
      sent += chunk.length;
      if (!req.write(chunk)) {
        source.pause();
        req.once("drain", () => {
          if (!aborting) source.resume();
        });
      }
      if (opts.abortAfter !== undefined && sent >= opts.abortAfter) {
        aborting = true;
        source.pause();
        // Cut the connection only once the service is receiving this upload (a fixed pause
        // was not enough on a loaded machine: the cut could come before the handler ran).
        void waitFor(() => h.service.ctx.activity.uploadsActive > 0, 10_000)
          .catch(() => undefined)
          .then(() => {
            req.destroy();
            done({ status: 0, json: undefined, headers: {} });
          });
      }
    });
    source.on("end", () => {
      if (opts.abortAfter === undefined) req.end();
    });
  });
}

/** Files under the service's temporary upload dir. */
export function tempFiles(h: Harness): string[] {
  return readdirSync(join(h.dataDir, "parcel", "tmp"));
}

/** Blob files stored on disk. */
export function blobFiles(h: Harness): string[] {
  const root = join(h.dataDir, "parcel", "blobs");
  return readdirSync(root).flatMap((d) => readdirSync(join(root, d)));
}

/** Polls `check` (a few ms apart) until it returns true or the time is up. */
export async function waitFor(check: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not reached in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}
