import { createHash } from "node:crypto";
import http from "node:http";
import { request, startChild, type ChildServer, type RequestResult } from "./lib.js";
import { ZipEntryHasher, type ZipEntryDigest } from "./zip-check.js";
import { buildServerIfChanged, SERVE_ENTRY } from "../scripts/build-server-if-changed.js";

/**
 * The service side of the transfer benchmark: Gatehouse started as its own process (the
 * headless entry compiled to dist/serve, as `npm run serve` runs it), optionally pinned to one core,
 * and the client steps of a transfer: create and fill a parcel, publish it, pick it up,
 * download a file or the parcel's ZIP.
 */

export const ADMIN_PASSWORD = "bench-password-1";

export interface Gate {
  srv: ChildServer;
  origin: string;
  api: string;
}

/** `cmd args` as given, or under `taskset -c <pin>` (the pid stays the same: taskset execs). */
export function pinned(pin: number | undefined, cmd: string, args: string[]): [string, string[]] {
  return pin === undefined ? [cmd, args] : ["taskset", ["-c", String(pin), cmd, ...args]];
}

/** The compile `npm run serve` runs first, once per benchmark run. */
let built: Promise<boolean> | undefined;

export async function startGatehouse(
  dataDir: string,
  pin?: number,
  extra: string[] = [],
): Promise<Gate> {
  built ??= buildServerIfChanged(process.cwd());
  await built;
  const [cmd, args] = pinned(pin, process.execPath, [
    SERVE_ENTRY,
    "--parcel-only",
    "--host",
    "127.0.0.1",
    "--parcel-port",
    "0",
    "--data-dir",
    dataDir,
    "--log-level",
    "warn",
    ...extra,
  ]);
  const srv = await startChild(cmd, args, /parcel service listening on (http:\S+)/, {
    GATEHOUSE_ADMIN_PASSWORD: ADMIN_PASSWORD,
  });
  return { srv, origin: srv.url, api: `${srv.url}/api/v1` };
}

/** The members of the API replies the benchmark reads. */
interface ApiReply {
  id: string;
  manage_token: string;
  files: Array<{ id: string }>;
  code: string;
  sha256: string;
}

async function json(
  g: Gate,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiReply> {
  const r = await request(`${g.api}${path}`, {
    method,
    keep: true,
    headers: { origin: g.origin, "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (r.status >= 300) throw new Error(`${method} ${path} -> ${r.status} ${r.body.toString()}`);
  return JSON.parse(r.body.toString()) as ApiReply;
}

/** A published parcel of one file, with the pickup cookie its downloads need. */
export interface Published {
  fileId: string;
  cookie: string;
  upload: RequestResult;
  /** The digest the service answered for the stored file. */
  sha256: string;
}

/** A new parcel of one file of `size` bytes: where its bytes go and the headers they need. */
export interface OpenFile {
  id: string;
  fileId: string;
  url: string;
  auth: Record<string, string>;
}

export async function openFile(g: Gate, size: number, downloads: number): Promise<OpenFile> {
  const created = await json(g, "POST", "/uploads", {
    files: [{ name: "bench.bin", size }],
    downloads,
    days: 1,
  });
  return {
    id: created.id,
    fileId: created.files[0].id,
    url: `${g.api}/uploads/${created.id}/files/${created.files[0].id}`,
    auth: { authorization: `Bearer ${created.manage_token}`, origin: g.origin },
  };
}

/** Uploads one file of `size` bytes from `source`, publishes it and picks it up. */
export async function publishParcel(
  g: Gate,
  size: number,
  source: () => Iterable<Buffer>,
  downloads: number,
): Promise<Published> {
  const file = await openFile(g, size, downloads);
  const auth = file.auth;
  const upload = await request(file.url, {
    method: "PUT",
    keep: true,
    headers: { ...auth, "content-length": String(size) },
    upload: source(),
  });
  if (upload.status !== 200) throw new Error(`PUT -> ${upload.status} ${upload.body.toString()}`);
  const stored = JSON.parse(upload.body.toString()) as ApiReply;
  const published = await json(g, "POST", `/uploads/${file.id}/publish`, undefined, auth);
  const cookie = await pickupCookie(g, published.code);
  return { fileId: file.fileId, cookie, upload, sha256: stored.sha256 };
}

function pickupCookie(g: Gate, code: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${g.api}/pickup/resolve`,
      { method: "POST", headers: { origin: g.origin, "content-type": "application/json" } },
      (res) => {
        res.resume();
        const set = res.headers["set-cookie"]?.[0];
        if (res.statusCode !== 200 || !set) reject(new Error(`resolve -> ${res.statusCode}`));
        else resolve(set.split(";")[0]);
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify({ code, password: "" }));
  });
}

/** Downloads the parcel's file; with `check`, also its sha256 (untimed passes only). */
export async function downloadFile(
  g: Gate,
  p: Published,
  check = false,
): Promise<RequestResult & { sha256?: string }> {
  const hash = check ? createHash("sha256") : null;
  const r = await request(`${g.api}/pickup/files/${p.fileId}/download`, {
    headers: { cookie: p.cookie },
    onData: hash ? (c) => hash.update(c) : undefined,
  });
  if (r.status !== 200) throw new Error(`download -> ${r.status}`);
  return hash ? { ...r, sha256: hash.digest("hex") } : r;
}

/** Downloads the parcel's ZIP; with `check`, also parses it and hashes its entry. */
export async function downloadZip(
  g: Gate,
  p: Published,
  check = false,
): Promise<RequestResult & { entry?: ZipEntryDigest }> {
  const zip = check ? new ZipEntryHasher() : null;
  const r = await request(`${g.api}/pickup/archive`, {
    headers: { cookie: p.cookie },
    onData: zip ? (c) => zip.push(c) : undefined,
  });
  if (r.status !== 200) throw new Error(`archive -> ${r.status}`);
  return zip ? { ...r, entry: zip.finish() } : r;
}
