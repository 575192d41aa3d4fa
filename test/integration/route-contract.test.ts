import express from "express";
import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { PARCEL_API } from "../../server/contract/parcel.js";
import { PROXY_API } from "../../server/contract/proxy.js";
import type { ApiContract } from "../../server/contract/route.js";
import { errorHandler, HttpError } from "../../server/http/errors.js";
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
  const contract = {
    "GET /things": { access: "open", summary: "s", tag: "t", responses: {} },
    "PUT /things/:id": { access: "closed", summary: "s", tag: "t", responses: {} },
  } as const satisfies ApiContract<"open" | "closed">;
  const guarded: string[] = [];
  const table = () =>
    new RouteTable<"open" | "closed", typeof contract>({
      contract,
      guard: (access) => {
        guarded.push(access);
        return [];
      },
    });

  it("refuses a handler without an entry, one registered twice, and the plain Express methods", () => {
    const r = table().router();
    expect(() => r.raw("GET /other" as "GET /things", () => undefined)).toThrow(
      /no entry in the contract/,
    );
    expect(() => r.get("/things", () => undefined)).toThrow(/register routes from the contract/);
    r.raw("GET /things", () => undefined);
    expect(() => r.raw("GET /things", () => undefined)).toThrow(/registered twice/);
  });

  it("refuses to finish while an entry has no handler, and guards each route by its entry's kind", () => {
    const t = table();
    guarded.length = 0;
    t.router().raw("GET /things", () => undefined);
    expect(t.unregistered()).toEqual(["PUT /things/:id"]);
    expect(() => t.assertComplete()).toThrow(/PUT \/things\/:id/);
    t.router("/things").raw("PUT /things/:id", () => undefined);
    expect(() => t.assertComplete()).not.toThrow();
    expect(guarded).toEqual(["open", "closed"]);
    expect(t.routes.map((r) => r.access)).toEqual(["open", "closed"]);
  });
});

describe("a JSON route registered from its entry", () => {
  const Item = z.strictObject({ name: z.string().min(2), size: z.number().default(1) });
  const contract = {
    "POST /items/:id": {
      access: "open",
      summary: "s",
      tag: "t",
      params: z.object({ id: z.string() }),
      query: z.object({ n: z.coerce.number().int() }),
      body: Item,
      responses: { 201: { description: "made", schema: Item.extend({ id: z.string() }) } },
    },
    "POST /loose": {
      access: "open",
      summary: "s",
      tag: "t",
      body: Item,
      responses: { 200: { description: "ok", schema: Item } },
    },
    "POST /optional": {
      access: "open",
      summary: "s",
      tag: "t",
      body: z.strictObject({}),
      responses: { 200: { description: "ok", schema: z.object({ ok: z.literal(true) }) } },
    },
  } as const satisfies ApiContract<"open">;
  let server: Server | undefined;
  let base = "";
  afterEach(() => server?.close());

  async function start(locked: boolean): Promise<void> {
    const t = new RouteTable<"open", typeof contract>({
      contract,
      guard: () => [express.json({ type: () => true })],
    });
    const r = t.router();
    r.endpoint("POST /items/:id", (input) => {
      // A switch judged before the input: it answers first, as a handler wrote it.
      if (locked) throw new HttpError(403, "auth.cross_site", "Locked");
      return { ...input.body, id: `${input.params.id}:${input.query.n}` };
    });
    r.endpoint("POST /loose", ({ body }) => body, { body: "as-is" });
    r.endpoint("POST /optional", ({ body }) => ({ ...body, ok: true as const }), {
      body: "optional",
    });
    const app = express()
      .use(r)
      .use(errorHandler(() => undefined));
    server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  const post = async (path: string, body?: string) => {
    const r = await fetch(base + path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    return { status: r.status, json: (await r.json()) as Record<string, unknown> };
  };

  it("parses params, query and body with the entry's schemas and answers the entry's status", async () => {
    await start(false);
    const made = await post("/items/a1?n=3", JSON.stringify({ name: "pen" }));
    expect(made).toEqual({ status: 201, json: { name: "pen", size: 1, id: "a1:3" } });
  });

  it("refuses what the schemas refuse with the coded 400s", async () => {
    await start(false);
    expect(await post("/items/a1?n=3", JSON.stringify({ name: "p" }))).toMatchObject({
      status: 400,
      json: { code: "request.invalid", params: { field: "name", issue: "too_small", limit: 2 } },
    });
    expect(await post("/items/a1?n=3", JSON.stringify({ name: "pen", x: 1 }))).toMatchObject({
      status: 400,
      json: { code: "request.unknown_field", params: { field: "x" } },
    });
    expect(await post("/items/a1?n=3", "[1]")).toMatchObject({
      status: 400,
      json: { code: "request.not_object" },
    });
    expect(await post("/items/a1?n=x", JSON.stringify({ name: "pen" }))).toMatchObject({
      status: 400,
      json: { code: "request.invalid", params: { field: "n" } },
    });
    // `as-is`: the schema itself judges a body that is not an object.
    expect(await post("/loose", "[1]")).toMatchObject({
      status: 400,
      json: { code: "request.invalid" },
    });
    // `optional`: no body is `{}`, a body with members is judged.
    expect(await post("/optional")).toEqual({ status: 200, json: { ok: true } });
    expect(await post("/optional", JSON.stringify({ a: 1 }))).toMatchObject({
      status: 400,
      json: { code: "request.unknown_field" },
    });
  });

  it("parses the input only when the handler reads it, so the handler's own refusals come first", async () => {
    await start(true);
    expect(await post("/items/a1?n=x", "[1]")).toMatchObject({
      status: 403,
      json: { code: "auth.cross_site" },
    });
  });
});
