import http from "node:http";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../server/log.js";
import { problem } from "../../server/problem-codes.js";
import { startParcel, type Harness } from "../helpers/parcel-harness.js";
import {
  bearer,
  createUpload,
  streamPut,
  uploadAndPublish,
  waitFor,
} from "../helpers/parcel-uploads.js";
import { FakeCore, startProxy, type ProxyHarness } from "./proxy-api-harness.js";

type Entry = Record<string, unknown>;

/** A logger at the most verbose level whose JSON lines the test reads back. */
function captured() {
  const lines: string[] = [];
  const logger = createLogger({
    level: "trace",
    destination: { write: (s: string) => lines.push(s) },
  });
  const entries = (): Entry[] => lines.map((l) => JSON.parse(l) as Entry);
  const requests = (id: string) =>
    entries().filter((e) => e.msg === "request" && e.requestId === id);
  /** The request's entry, once its exchange has ended (it is written on `close`). */
  const requestEntry = async (id: string): Promise<Entry> => {
    await waitFor(() => requests(id).length > 0);
    return requests(id)[0];
  };
  return { logger, lines, entries, requests, requestEntry };
}

const ID_FORM = /^[0-9a-f]{16}$/;

let parcel: Harness | null = null;
let proxy: ProxyHarness | null = null;
afterEach(async () => {
  await parcel?.close(true);
  await proxy?.close();
  parcel = null;
  proxy = null;
});

describe("request log (parcel service)", () => {
  it("answers a fresh id in X-Request-Id and logs the request once under that id", async () => {
    const log = captured();
    parcel = await startParcel({ logger: log.logger });
    const r = await parcel.request("GET", "/health", {
      headers: { "x-request-id": "chosen-by-the-client" },
    });
    expect(r.status).toBe(200);
    const id = String(r.headers["x-request-id"]);
    expect(id).toMatch(ID_FORM);
    const e = await log.requestEntry(id);
    expect(e).toMatchObject({
      level: "info",
      method: "GET",
      route: "/api/v1/health",
      status: 200,
      bytes: r.body.length,
      ip: "127.0.0.1",
    });
    expect(typeof e.ms).toBe("number");
    expect(e.aborted).toBeUndefined();
    expect(log.requests(id)).toHaveLength(1);
    expect(log.lines.join("")).not.toContain("chosen-by-the-client");

    const again = await parcel.request("GET", "/health");
    expect(again.headers["x-request-id"]).toMatch(ID_FORM);
    expect(again.headers["x-request-id"]).not.toBe(id);
  });

  it("names a matched route by its pattern and never logs a query string", async () => {
    const log = captured();
    parcel = await startParcel({ logger: log.logger });
    const up = await createUpload(parcel, { "a.txt": 3 });
    const r = await parcel.request("GET", `/uploads/${up.id}?note=QUERY-VALUE-1`, {
      headers: bearer(up.manage_token),
    });
    expect(r.status).toBe(200);
    const e = await log.requestEntry(String(r.headers["x-request-id"]));
    expect(e).toMatchObject({ route: "/api/v1/uploads/:id", status: 200 });

    const missing = await parcel.request("GET", "/no/such/thing?code=QUERY-VALUE-2");
    expect(missing.status).toBe(404);
    const m = await log.requestEntry(String(missing.headers["x-request-id"]));
    expect(m).toMatchObject({ path: "/api/v1/no/such/thing", status: 404 });
    expect(m.route).toBeUndefined();
    expect(log.lines.join("")).not.toMatch(/QUERY-VALUE/);
  });

  it("logs the service's failure with the request id the response carries, for the admin too", async () => {
    const log = captured();
    parcel = await startParcel({ logger: log.logger });
    const up = await createUpload(parcel, { "a.txt": 5 });
    const published = await uploadAndPublish(parcel, up);
    const resolved = await parcel.request("POST", "/pickup/resolve", {
      body: { code: published.json.code, password: "" },
    });
    expect(resolved.status).toBe(200);
    const listing = await parcel.request("GET", "/pickup");
    const fileId = listing.json.files[0].id as string;
    // The disk fails under the service: the blob folder is no longer a folder (a missing blob
    // alone is answered 410 and quarantined, which is no failure of the service).
    rmSync(join(parcel.dataDir, "parcel", "blobs"), { recursive: true, force: true });
    writeFileSync(join(parcel.dataDir, "parcel", "blobs"), "");
    const r = await parcel.request("GET", `/pickup/files/${fileId}/download`);
    expect(r.status).toBe(500);
    const id = String(r.headers["x-request-id"]);
    const failure = log.entries().find((e) => e.level === "error");
    expect(failure).toMatchObject({ requestId: id });
    expect(String(failure?.msg)).toContain(`GET /api/v1/pickup/files/${fileId}/download failed`);
    expect(JSON.stringify(failure?.err)).toContain("ENOTDIR");
    expect(await log.requestEntry(id)).toMatchObject({
      route: "/api/v1/pickup/files/:file/download",
      status: 500,
    });

    expect((await parcel.request("GET", "/admin/errors")).status).toBe(401);
    await parcel.request("POST", "/admin/login", {
      body: { username: "admin", password: "admin-password-1" },
    });
    const errors = await parcel.request("GET", "/admin/errors");
    expect(errors.status).toBe(200);
    expect(errors.json.items).toHaveLength(1);
    expect(errors.json.items[0]).toEqual({
      time: parcel.service.ctx.now(),
      level: "error",
      // The answer's own code says why, for the page to word it; the path is not kept.
      code: "request.failed",
      params: { reason_code: "download.read_failed" },
      message: expect.stringContaining("The file could not be read: ENOTDIR"),
      request_id: id,
    });
  });

  it("marks an upload the client cut as aborted, under its route", async () => {
    const log = captured();
    parcel = await startParcel({ logger: log.logger });
    const up = await createUpload(parcel, { "big.bin": 1 << 20 });
    const path = `/uploads/${up.id}/files/${up.files[0].id}`;
    await streamPut(
      parcel,
      path,
      Readable.from([Buffer.alloc(64 * 1024), Buffer.alloc(64 * 1024)]),
      {
        headers: bearer(up.manage_token),
        contentLength: 1 << 20,
        abortAfter: 64 * 1024,
      },
    );
    await waitFor(() =>
      log
        .entries()
        .some((e) => e.msg === "request" && e.route === "/api/v1/uploads/:id/files/:file"),
    );
    const e = log
      .entries()
      .find((x) => x.msg === "request" && x.route === "/api/v1/uploads/:id/files/:file");
    expect(e).toMatchObject({ method: "PUT", aborted: true });
    expect(String(e?.requestId)).toMatch(ID_FORM);
  });
});

describe("request log (proxy service)", () => {
  it("gives requests refused before any route (wrong Host) an id and an entry", async () => {
    const log = captured();
    proxy = await startProxy({ core: new FakeCore(), logger: log.logger });
    const r = await proxy.request("GET", "/auth/status", { headers: { host: "evil.example" } });
    expect(r.status).toBe(421);
    const e = await log.requestEntry(String(r.headers["x-request-id"]));
    expect(e).toMatchObject({ method: "GET", path: "/api/v1/auth/status", status: 421 });
  });

  it("logs an event stream once, when it ends, with the bytes it sent", async () => {
    const log = captured();
    proxy = await startProxy({ core: new FakeCore(), logger: log.logger });
    await proxy.setup();
    const { id, received } = await new Promise<{ id: string; received: number }>(
      (resolve, reject) => {
        const req = http.get(
          {
            host: "127.0.0.1",
            port: proxy!.port,
            path: "/api/v1/events",
            headers: { host: `127.0.0.1:${proxy!.port}`, cookie: proxy!.cookie ?? "" },
          },
          (res) => {
            res.once("data", (chunk: Buffer) => {
              const requestId = String(res.headers["x-request-id"]);
              // Open and streaming: nothing is logged for it yet.
              expect(log.requests(requestId)).toHaveLength(0);
              req.destroy();
              resolve({ id: requestId, received: chunk.length });
            });
          },
        );
        req.on("error", (err) => {
          if (!req.destroyed) reject(err);
        });
      },
    );
    const e = await log.requestEntry(id);
    expect(e).toMatchObject({ route: "/api/v1/events", status: 200, aborted: true });
    expect(e.bytes as number).toBeGreaterThanOrEqual(received);
    expect(log.requests(id)).toHaveLength(1);
  });

  it("lists the service's recent problems in /status, newest first", async () => {
    const log = captured();
    proxy = await startProxy({ core: new FakeCore(), logger: log.logger });
    await proxy.setup();
    proxy.service.ctx.log.warn("core.close_failed", "first problem");
    proxy.clock.advance(1500);
    proxy.service.ctx.log(
      "second problem",
      problem("error", "subscription.scheduled_refresh_failed", { params: { name: "Home" } }),
    );
    const r = await proxy.request("GET", "/status");
    expect(r.status).toBe(200);
    expect(r.json.recentErrors).toEqual([
      {
        time: new Date(proxy.clock.now()).toISOString(),
        level: "error",
        code: "subscription.scheduled_refresh_failed",
        params: { name: "Home" },
        message: "second problem",
        requestId: null,
      },
      {
        time: new Date(proxy.clock.now() - 1500).toISOString(),
        level: "warn",
        code: "core.close_failed",
        params: {},
        message: "first problem",
        requestId: null,
      },
    ]);
  });
});
