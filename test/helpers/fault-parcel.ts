import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { Client } from "./fault-service.js";

export const MiB = 1024 * 1024;

export interface Upload {
  id: string;
  manage_token: string;
  files: Array<{ id: string; name: string; size: number }>;
}

export const bearer = (up: Upload) => ({ authorization: `Bearer ${up.manage_token}` });

export const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

/** `POST /uploads` for `files` (name -> size) that must be admitted. */
export function createUpload(
  c: Client,
  files: Record<string, number>,
  extra: Record<string, unknown> = {},
): Promise<Upload> {
  return c.expect<Upload>(201, "POST", "/api/v1/uploads", {
    body: { files: Object.entries(files).map(([name, size]) => ({ name, size })), ...extra },
  });
}

export function putFile(c: Client, up: Upload, index: number, body: Buffer) {
  return c.request("PUT", `/api/v1/uploads/${up.id}/files/${up.files[index].id}`, {
    raw: body,
    headers: bearer(up),
  });
}

/** Uploads random content for every file and publishes; returns the contents and the code. */
export async function publishedParcel(
  c: Client,
  files: Record<string, number>,
  extra: Record<string, unknown> = {},
): Promise<{ up: Upload; bodies: Buffer[]; code: string }> {
  const up = await createUpload(c, files, extra);
  const bodies = up.files.map((f) => randomBytes(f.size));
  for (const [i, body] of bodies.entries()) {
    const r = await putFile(c, up, i, body);
    if (r.status !== 200) throw new Error(`PUT answered ${r.status}: ${r.text}`);
  }
  const pub = await c.expect<{ code: string }>(200, "POST", `/api/v1/uploads/${up.id}/publish`, {
    headers: bearer(up),
  });
  return { up, bodies, code: pub.code };
}

/** The owner's view of a parcel (with its manage token). */
export function ownerView(c: Client, up: Upload) {
  return c.expect<{
    state: string;
    sent_at: number | null;
    downloads_left: number;
    files: Array<{ id: string; state: string }>;
  }>(200, "GET", `/api/v1/uploads/${up.id}`, { headers: bearer(up) });
}

/** A recipient client that resolved `code` (holds the pickup cookie). */
export async function recipient(url: string, code: string): Promise<Client> {
  const c = new Client(url);
  await c.expect(200, "POST", "/api/v1/pickup/resolve", { body: { code } });
  return c;
}

/**
 * A PUT that declares the whole file but sends only its first `send` bytes, then keeps the
 * connection open. `closed` settles when the connection ends (the service died).
 */
export function partialPut(
  c: Client,
  up: Upload,
  index: number,
  body: Buffer,
  send: number,
): { closed: Promise<void> } {
  const req = http.request({
    host: "127.0.0.1",
    port: c.port,
    method: "PUT",
    path: `/api/v1/uploads/${up.id}/files/${up.files[index].id}`,
    headers: {
      host: `127.0.0.1:${c.port}`,
      origin: c.origin,
      "content-length": String(body.length),
      ...bearer(up),
    },
    agent: false,
  });
  const closed = new Promise<void>((resolve) => {
    req.on("error", () => resolve());
    req.on("close", () => resolve());
  });
  req.write(body.subarray(0, send));
  return { closed };
}

/**
 * Starts a download and stops reading once `atLeast` body bytes arrived (the socket then
 * fills up and the service's writes wait). Resolves with the bytes read so far; `drop`
 * closes the connection.
 */
export function stalledDownload(
  c: Client,
  fileId: string,
  atLeast: number,
): Promise<{ status: number; read: number; drop(): void }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host: `127.0.0.1:${c.port}` };
    const cookie = c.jar.header();
    if (cookie) headers.cookie = cookie;
    const req = http.request({
      host: "127.0.0.1",
      port: c.port,
      method: "GET",
      path: `/api/v1/pickup/files/${fileId}/download`,
      headers,
      agent: false,
    });
    req.on("error", reject);
    req.on("response", (res) => {
      let read = 0;
      const drop = () => req.destroy();
      res.on("error", () => undefined);
      res.on("data", (chunk: Buffer) => {
        read += chunk.length;
        if (read >= atLeast) {
          res.pause();
          resolve({ status: res.statusCode ?? 0, read, drop });
        }
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, read, drop }));
    });
    req.end();
  });
}

/** Files in the service's temporary upload dir, with their sizes. */
export function tempFiles(dataDir: string): Array<{ name: string; size: number }> {
  const dir = join(dataDir, "parcel", "tmp");
  return readdirSync(dir).map((name) => {
    try {
      return { name, size: statSync(join(dir, name)).size };
    } catch {
      return { name, size: -1 };
    }
  });
}
