import http from "node:http";
import { expect } from "vitest";
import {
  auditOf,
  CookieJar,
  startParcel,
  type Harness,
  type Reply,
} from "../helpers/parcel-harness.js";
import { createUpload, uploadAndPublish, type Created } from "../helpers/parcel-uploads.js";

/** Shared set-up of the pickup tests: a service with plenty of (pretend) free disk. */
export async function startPickup(opts: Parameters<typeof startParcel>[0] = {}): Promise<Harness> {
  return startParcel({ diskFree: () => 50 * 1024 ** 3, ...opts });
}

export interface Shared extends Created {
  /** Display form of the code (`ABC-123`). */
  code: string;
  publish: Reply;
}

/** Uploads (deterministic bytes: file i is filled with `fill + i`) and publishes. */
export async function shareParcel(
  h: Harness,
  files: Record<string, number>,
  extra: Record<string, unknown> = {},
  fill = 0x61,
): Promise<Shared> {
  const up = await createUpload(h, files, extra);
  const publish = await uploadAndPublish(h, up, fill);
  expect(publish.status).toBe(200);
  return { ...up, code: publish.json.code as string, publish };
}

export function resolve(
  h: Harness,
  jar: CookieJar,
  code: string,
  password?: string,
): Promise<Reply> {
  return h.request("POST", "/pickup/resolve", {
    jar,
    body: password === undefined ? { code } : { code, password },
  });
}

/** A fresh recipient jar holding a pickup cookie for `code`. */
export async function recipient(h: Harness, code: string, password?: string): Promise<CookieJar> {
  const jar = new CookieJar();
  const r = await resolve(h, jar, code, password);
  expect(r.status).toBe(200);
  return jar;
}

export async function adminJar(h: Harness): Promise<CookieJar> {
  const jar = new CookieJar();
  const r = await h.request("POST", "/admin/login", {
    jar,
    body: { username: "admin", password: "admin-password-1" },
  });
  expect(r.status).toBe(200);
  return jar;
}

/** The parcel as stored, read through the parcels repository. */
export function parcelRow(h: Harness, id: string) {
  const row = h.repos.parcels.byId(id);
  if (!row) throw new Error(`no parcel ${id} in storage`);
  return row;
}

/** The audit records of one action, oldest first (through the audit repository). */
export const auditRows = auditOf;

/**
 * A raw request from another loopback address (Linux routes all of 127/8 locally), so tests
 * can act as a second client with its own IP.
 */
export function requestFrom(
  h: Harness,
  localAddress: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  return new Promise((resolvePromise, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = http.request(
      {
        host: "127.0.0.1",
        port: h.port,
        localAddress,
        method,
        path: `/api/v1${path}`,
        headers: {
          host: `127.0.0.1:${h.port}`,
          origin: h.origin,
          ...(payload
            ? { "content-type": "application/json", "content-length": String(payload.length) }
            : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          let json: unknown;
          try {
            json = JSON.parse(Buffer.concat(chunks).toString("utf8"));
          } catch {
            json = undefined;
          }
          resolvePromise({ status: res.statusCode ?? 0, json });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** Starts a GET and hands back the response as soon as its headers arrive (body unread). */
export function openStream(
  h: Harness,
  jar: CookieJar,
  path: string,
): Promise<{ req: http.ClientRequest; res: http.IncomingMessage }> {
  return new Promise((resolvePromise, reject) => {
    const headers: Record<string, string> = { host: `127.0.0.1:${h.port}` };
    const cookie = jar.header();
    if (cookie) headers.cookie = cookie;
    const req = http.request({
      host: "127.0.0.1",
      port: h.port,
      method: "GET",
      path: `/api/v1${path}`,
      headers,
    });
    req.on("response", (res) => {
      res.pause();
      resolvePromise({ req, res });
    });
    req.on("error", reject);
    req.end();
  });
}

/** Reads the rest of a response body. */
export function readAll(res: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolvePromise, reject) => {
    const chunks: Buffer[] = [];
    res.on("data", (c: Buffer) => chunks.push(c));
    res.on("end", () => resolvePromise(Buffer.concat(chunks)));
    res.on("error", reject);
    res.resume();
  });
}
