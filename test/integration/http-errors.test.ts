import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorHandler, HttpError, notFound } from "../../server/http/errors.js";

/** The shared error handler, on a real socket: every answer it writes carries a code. */

let server: Server;
let base: string;
const logged: string[] = [];

beforeAll(async () => {
  const app = express();
  app.use(express.json({ limit: 100 }));
  app.get("/plain", () => {
    throw new Error("a bug with a secret in it: hunter2");
  });
  app.get("/full", () => {
    throw Object.assign(new Error("write failed"), { code: "ENOSPC" });
  });
  app.get("/coded", () => {
    throw new HttpError(429, "pickup.too_many", "Too many failed pickup attempts", {
      headers: { "Retry-After": "30" },
      extra: { password_required: true },
    });
  });
  app.get("/valued", () => {
    throw new HttpError(409, "upload.not_ready", "2 file(s) are not uploaded yet", {
      params: { count: 2 },
    });
  });
  app.post("/body", (_req, res) => {
    res.json({ ok: true });
  });
  app.get("/item/:id", (req, res) => {
    res.json({ id: req.params.id });
  });
  app.use(notFound("No such page", "request.no_page"));
  app.use(errorHandler((line) => logged.push(line)));
  server = app.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
});

async function get(path: string, init?: RequestInit) {
  const res = await fetch(base + path, init);
  return { status: res.status, headers: res.headers, body: (await res.json()) as unknown };
}

describe("errorHandler", () => {
  it("answers an unexpected error with 500 server.internal and keeps its words for the log", async () => {
    const r = await get("/plain");
    expect(r).toMatchObject({
      status: 500,
      body: { error: "Internal server error", code: "server.internal" },
    });
    expect(JSON.stringify(r.body)).not.toContain("hunter2");
    expect(logged.join("\n")).toContain("Unexpected error while answering GET /plain");
  });

  it("answers a full disk with 507 server.disk_full", async () => {
    const r = await get("/full");
    expect(r.status).toBe(507);
    expect(r.body).toMatchObject({ code: "server.disk_full" });
  });

  it("writes the code, the params only when there are values, then the extra members", async () => {
    const coded = await get("/coded");
    expect(coded.status).toBe(429);
    expect(coded.headers.get("retry-after")).toBe("30");
    expect(coded.body).toEqual({
      error: "Too many failed pickup attempts",
      code: "pickup.too_many",
      password_required: true,
    });
    expect(Object.keys(coded.body as object)).toEqual(["error", "code", "password_required"]);
    expect((await get("/valued")).body).toEqual({
      error: "2 file(s) are not uploaded yet",
      code: "upload.not_ready",
      params: { count: 2 },
    });
  });

  it("codes the body parser's refusals, a bad path encoding and an unknown path", async () => {
    const post = (body: string) =>
      get("/body", { method: "POST", body, headers: { "content-type": "application/json" } });
    expect((await post("{no")).body).toMatchObject({ code: "request.bad_json" });
    expect((await post(JSON.stringify({ a: "x".repeat(500) }))).body).toMatchObject({
      code: "request.too_large",
    });
    expect((await get("/item/%ZZ")).body).toMatchObject({ code: "request.bad_encoding" });
    expect((await get("/nowhere")).body).toEqual({
      error: "No such page",
      code: "request.no_page",
    });
  });
});
