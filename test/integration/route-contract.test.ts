import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { PARCEL_API } from "../../server/contract/parcel.js";
import { PROXY_API } from "../../server/contract/proxy.js";
import type { ApiContract } from "../../server/contract/route.js";
import { openApiPath } from "../../server/http/openapi.js";
import { countRoutes, RouteTable, type Route } from "../../server/http/route-table.js";
import { startParcel, type Harness } from "../helpers/parcel-harness.js";
import { FakeCore, startProxy, type ProxyHarness } from "./proxy-api-harness.js";

// One contract entry is one route: the route table, its guards, the OpenAPI document and the
// entries are the same set, with the same access kind, in both services.

let parcel: Harness | undefined;
let proxy: ProxyHarness | undefined;
afterEach(async () => {
  await parcel?.close(true);
  await proxy?.close();
  parcel = proxy = undefined;
});

/** `METHOD /path` → access, as the route table registered them (a repeat would show twice). */
function registered(routes: readonly Route<string>[]): string[] {
  return routes.map((r) => `${r.method} ${r.path} ${r.access}`).sort();
}

/** `METHOD /path` → access, as the contract's entries say. */
function entries(contract: ApiContract): string[] {
  return Object.entries(contract)
    .map(([key, entry]) => `${key} ${entry.access}`)
    .sort();
}

/** Every operation of an OpenAPI document, written `METHOD /{param}`. */
function documented(doc: { paths: Record<string, object> }): string[] {
  return Object.entries(doc.paths)
    .flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`))
    .sort();
}

function entryPaths(contract: ApiContract): string[] {
  return Object.keys(contract)
    .map((key) => {
      const [method, path] = key.split(" ") as [string, string];
      return `${method} ${openApiPath(path)}`;
    })
    .sort();
}

describe("the parcel service's routes are its contract entries", () => {
  it("registers each entry once with its access kind, answers no other route, documents the same set", async () => {
    parcel = await startParcel();
    const routes = parcel.service.ctx.routes;
    expect(registered(routes.routes)).toEqual(entries(PARCEL_API));
    expect(routes.unregistered()).toEqual([]);
    // A route added around the table (a plain router's `get`) would make the app answer more.
    expect(countRoutes(parcel.service.app.router)).toBe(routes.routes.length);
    const doc = (await parcel.request("GET", "/openapi.json")).json as { paths: object };
    expect(documented(doc as { paths: Record<string, object> })).toEqual(entryPaths(PARCEL_API));
  });
});

describe("the proxy service's routes are its contract entries", () => {
  it("registers each entry once with its access kind, answers no other route, documents the same set", async () => {
    proxy = await startProxy({ core: new FakeCore() });
    const routes = proxy.service.ctx.routes;
    expect(registered(routes.routes)).toEqual(entries(PROXY_API));
    expect(routes.unregistered()).toEqual([]);
    expect(countRoutes(proxy.service.app.router)).toBe(routes.routes.length);
    const doc = (await proxy.request("GET", "/openapi.json", { noCookie: true })).json;
    expect(documented(doc as { paths: Record<string, object> })).toEqual(entryPaths(PROXY_API));
  });
});

describe("a route table made from a contract", () => {
  const contract: ApiContract<"open" | "closed"> = {
    "GET /things": { access: "open", summary: "s", tag: "t", responses: {} },
    "PUT /things/:id": { access: "closed", summary: "s", tag: "t", responses: {} },
  };
  const guarded: string[] = [];
  const table = (): RouteTable<"open" | "closed"> =>
    new RouteTable({
      contract,
      guard: (access) => {
        guarded.push(access);
        return [];
      },
    });

  it("refuses a handler without an entry, and one registered twice", () => {
    const t = table();
    const r = t.router();
    expect(() => r.get("/other", () => undefined)).toThrow(/no entry in the contract/);
    // The same path with another method is another route, without an entry too.
    expect(() => r.post("/things", () => undefined)).toThrow(/no entry in the contract/);
    r.get("/things", () => undefined);
    expect(() => r.get("/things", () => undefined)).toThrow(/registered twice/);
  });

  it("refuses to finish while an entry has no handler, and guards each route by its entry's kind", () => {
    const t = table();
    guarded.length = 0;
    t.router().get("/things", () => undefined);
    expect(t.unregistered()).toEqual(["PUT /things/:id"]);
    expect(() => t.assertComplete()).toThrow(/PUT \/things\/:id/);
    const app = express();
    app.use(
      "/api",
      t.router("/things").put("/:id", () => undefined),
    );
    expect(() => t.assertComplete()).not.toThrow();
    expect(guarded).toEqual(["open", "closed"]);
    expect(t.routes.map((r) => r.access)).toEqual(["open", "closed"]);
  });
});
