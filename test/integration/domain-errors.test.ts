import express from "express";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { DomainError, statusOfKind } from "../../server/domain-errors.js";
import { errorHandler } from "../../server/http/errors.js";
import { PARCEL_STATUS } from "../../server/parcel/error-status.js";
import { PROXY_STATUS } from "../../server/proxy/error-status.js";

describe("domain errors", () => {
  let close: (() => void) | null = null;
  afterEach(() => close?.());

  it("map each kind to one status", () => {
    expect(statusOfKind("not_found")).toBe(404);
    expect(statusOfKind("gone")).toBe(410);
    expect(statusOfKind("conflict")).toBe(409);
    expect(statusOfKind("locked")).toBe(423);
    expect(statusOfKind("rate_limited")).toBe(429);
    expect(statusOfKind("limit")).toBe(507);
    expect(statusOfKind("unavailable")).toBe(503);
    expect(statusOfKind("timeout")).toBe(408);
  });

  it("are answered per service: an unknown id is 404 in the parcel service, 400 in the proxy's", async () => {
    expect(statusOfKind("not_found", PARCEL_STATUS)).toBe(404);
    expect(statusOfKind("not_found", PROXY_STATUS)).toBe(400);
    // Every other kind is answered alike.
    for (const kind of Object.keys(PARCEL_STATUS) as Array<keyof typeof PARCEL_STATUS>)
      if (kind !== "not_found") expect(PROXY_STATUS[kind], kind).toBe(PARCEL_STATUS[kind]);
    const app = express();
    app.get("/rule", () => {
      throw new DomainError("not_found", "rule.unknown", "Unknown rule");
    });
    app.use(errorHandler(() => undefined, PROXY_STATUS));
    const server = app.listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    close = () => server.close();
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/rule`);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "Unknown rule", code: "rule.unknown" });
  });

  it("are answered by the error handler with their status, code, params, extra and headers", async () => {
    const app = express();
    app.get("/x", () => {
      throw new DomainError("unauthorized", "pickup.password_wrong", "Wrong password", {
        params: { attempts_left: 2 },
        headers: { "Retry-After": "30" },
        extra: { password_required: true },
      });
    });
    const lines: string[] = [];
    app.use(errorHandler((l) => lines.push(l)));
    const server = app.listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    close = () => server.close();
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/x`);
    expect(res.status).toBe(401);
    expect(res.headers.get("retry-after")).toBe("30");
    expect(await res.json()).toEqual({
      error: "Wrong password",
      code: "pickup.password_wrong",
      params: { attempts_left: 2 },
      password_required: true,
    });
    expect(lines).toEqual([]);
  });
});
