import { afterEach, describe, expect, it } from "vitest";
import { countRoutes } from "../../server/http/route-table.js";
import { PARCEL_API } from "../../server/contract/parcel.js";
import { startParcel, type Harness } from "../helpers/parcel-harness.js";

let h: Harness;
afterEach(async () => h?.close(true));

describe("parcel route table", () => {
  it("registers exactly the routes of the contract, and the app answers no other", async () => {
    h = await startParcel();
    const registered = h.service.ctx.routes.routes.map((r) => `${r.method} ${r.path}`);
    expect(registered.sort()).toEqual(Object.keys(PARCEL_API).sort());
    expect(countRoutes(h.service.app.router)).toBe(registered.length);
  });
});

describe("paths in another letter case or with a trailing slash", () => {
  it("answers 404 and never reaches the route", async () => {
    h = await startParcel();
    const login = await h.request("POST", "/admin/login", {
      body: { username: "admin", password: "admin-password-1" },
    });
    expect(login.status).toBe(200);
    for (const path of ["/Admin/stats", "/admin/Stats", "/admin/stats/", "/ADMIN/STATS"]) {
      const r = await h.request("GET", path);
      expect(r.status, path).toBe(404);
      expect(r.json).toEqual({ error: "No such endpoint", code: "request.no_endpoint" });
    }
    expect((await h.request("GET", "/admin/stats")).status).toBe(200);
    const create = await h.request("POST", "/Uploads", {
      body: { files: [{ name: "a.txt", size: 1 }] },
    });
    expect(create.status).toBe(404);
    const stats = await h.request("GET", "/admin/stats");
    expect(stats.json.parcels.total).toBe(0);
  });

  it("answers 404 under another spelling of the API prefix", async () => {
    h = await startParcel();
    for (const prefix of ["/API/v1", "/api/V1"]) {
      const r = await fetch(`${h.origin}${prefix}/health`);
      expect(r.status, prefix).toBe(404);
    }
  });

  it("answers 401 for an existing admin route without a session and 404 for an unknown one", async () => {
    h = await startParcel();
    expect((await h.request("GET", "/admin/stats")).status).toBe(401);
    expect((await h.request("GET", "/admin/nothing-here")).status).toBe(404);
  });
});

describe("malformed percent-encoding in a path parameter", () => {
  it("answers 400 with a sentence, never 500", async () => {
    h = await startParcel();
    for (const path of ["/uploads/%ZZ", "/pickup/files/%E0%A4%A/download", "/parcels/%/revoke"]) {
      const method = path.endsWith("revoke") ? "POST" : "GET";
      const r = await h.request(method, path);
      expect(r.status, path).toBe(400);
      expect(r.json).toEqual({
        error: "The address is not correctly encoded",
        code: "request.bad_encoding",
      });
    }
  });
});
