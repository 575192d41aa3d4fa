import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { SESSION_COOKIE, type ProxyAccess } from "../../server/proxy/auth/guards.js";
import {
  isStateChanging,
  routeKey,
  runRoute,
  send,
  staleRecipes,
  unknownParts,
  type AccessRules,
  type Headers,
  type MatrixModel,
  type RawReply,
  type Recipe,
} from "../helpers/hostile-matrix.js";
import { FakeCore, FakeFeeds, PASSWORD, startProxy } from "./proxy-api-harness.js";
import { startGeodataServer } from "../fixtures/geodata-server.js";
import { PROXY_CONCURRENT_CASES } from "./hostile-concurrent-proxy.js";

/**
 * Every route of the proxy service's route table, called the right way and then with one
 * hostile change at a time: no or unknown session, a foreign Origin or X-Service-Origin,
 * Sec-Fetch-Site: cross-site, no CSRF token, another letter case, a trailing slash, an unknown
 * Host.
 */

const FEED_URL = "http://feeds.matrix.test/nodes";
const RULE = { type: "DOMAIN-SUFFIX", value: "matrix.example", action: "DIRECT" };
// The service refuses a second subscription of one address and a second rule of one value
// (409), so every subscription and rule the matrix makes gets an address or value of its own.
let serial = 0;
const freshFeed = (): string => `${FEED_URL}?n=${++serial}`;
const freshRule = () => ({ ...RULE, value: `r${++serial}.matrix.example` });

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

// The update check reads this instead of the real release source.
const releases = http.createServer((_req, res) => {
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify({ tag_name: "v1.19.0", html_url: "http://127.0.0.1/release" }));
});
const releasePort = await listen(releases);
// A port nothing listens on: the connectivity test fails at once instead of leaving the machine.
const closed = http.createServer();
const closedPort = await listen(closed);
await new Promise<void>((resolve) => closed.close(() => resolve()));

const geodata = await startGeodataServer();
const feeds = new FakeFeeds();
feeds.responses.set(FEED_URL, JSON.stringify([{ name: "matrix-node", type: "ss" }]));
const h = await startProxy({
  core: new FakeCore(),
  feeds,
  coreReleaseURL: `http://127.0.0.1:${releasePort}/latest`,
  // "Update geodata" reads a local server publishing the files and their checksums.
  geodataURL: geodata.url,
});
await h.setup();
{
  const settings = (await h.request("GET", "/settings")).json as Record<string, unknown>;
  const r = await h.request("PUT", "/settings", { body: { ...settings, mixedPort: closedPort } });
  if (r.status !== 200) throw new Error(`PUT /settings answered ${r.status}: ${r.text}`);
}
afterAll(async () => {
  await h.close();
  await new Promise<void>((resolve) => releases.close(() => resolve()));
  await geodata.close();
});

type Json = RawReply & { json: unknown };

interface ProxyFixture {
  /** `svc_session=<value>` of a session of its own. */
  cookie: string;
  csrf: string;
  call(method: string, path: string, body?: unknown): Promise<Json>;
  subscription(): Promise<string>;
  rule(): Promise<string>;
  node(): Promise<string>;
  device(): Promise<string>;
}

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | null = null;
  return () => (made ??= make());
}

const host = `127.0.0.1:${h.port}`;

async function call(method: string, path: string, body: unknown, extra: Headers): Promise<Json> {
  const headers: Headers = { host, ...extra };
  if (isStateChanging(method)) headers.origin = h.origin;
  let payload: Buffer | undefined;
  if (body !== undefined) {
    payload = Buffer.from(JSON.stringify(body));
    headers["content-type"] = "application/json";
  }
  const reply = await send(h.port, { method, path: `/api/v1${path}`, headers, body: payload });
  let json: unknown;
  try {
    json = JSON.parse(reply.text);
  } catch {
    json = undefined;
  }
  return { ...reply, json };
}

function must(r: Json, what: string): Json {
  if (r.status !== 200) throw new Error(`fixture: ${what} answered ${r.status}: ${r.text}`);
  return r;
}

/** A session of its own, and the objects a route's parameters name, made when first asked. */
async function fixture(): Promise<ProxyFixture> {
  const login = must(await call("POST", "/auth/login", { password: PASSWORD }, {}), "login");
  const line = (login.headers["set-cookie"] ?? []).find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  if (!line) throw new Error("fixture: login set no session cookie");
  const cookie = line.split(";")[0];
  const csrf = (login.json as { csrf: string }).csrf;
  const fx: ProxyFixture = {
    cookie,
    csrf,
    call: (method, path, body) => call(method, path, body, { cookie, "x-csrf-token": csrf }),
    subscription: once(async () => {
      const url = freshFeed();
      feeds.responses.set(url, JSON.stringify([{ name: "matrix-node", type: "ss" }]));
      const body = { name: "matrix feed", url, intervalHours: 0 };
      const id = (
        must(await fx.call("POST", "/subscriptions", body), "POST /subscriptions").json as {
          id: string;
        }
      ).id;
      must(await fx.call("POST", `/subscriptions/${id}/refresh`), "refresh");
      return id;
    }),
    rule: once(async () => {
      const made = must(await fx.call("POST", "/rules", freshRule()), "POST /rules");
      return (made.json as { id: string }).id;
    }),
    // A device known only from a backup: restored with the state as it is plus one device.
    device: once(async () => {
      const backup = must(await fx.call("GET", "/system/backup"), "GET backup").json as {
        state: { devices: Array<{ id: string; name: string; policy: string }> };
      };
      const n = ++serial;
      const id = `192.168.${Math.floor(n / 250) % 250}.${(n % 250) + 1}`;
      backup.state.devices.push({ id, name: "matrix device", policy: "default" });
      must(await fx.call("POST", "/system/restore", backup), "restore with a device");
      return id;
    }),
    node: once(async () => {
      const sub = await fx.subscription();
      const nodes = must(await fx.call("GET", "/nodes"), "GET /nodes").json as Array<{
        id: string;
      }>;
      const node = nodes.find((n) => n.id.startsWith(`${sub}/`));
      if (!node) throw new Error("fixture: the refreshed subscription has no node");
      return node.id;
    }),
  };
  return fx;
}

const json = (value: unknown) => ({ json: value });
const NO_CORE = {
  code: 503,
  why: "no core is connected in this matrix, so the route answers 503 once admitted",
  error: /core is not running or cannot be reached/,
};

const NO_PROBATION = {
  code: 409,
  why: "no settings change waits for confirmation, which the route itself says",
  error: /No settings change is waiting/,
};

const RECIPES: Record<string, Recipe<ProxyFixture>> = {
  "POST /auth/setup": {
    body: () => json({ token: "matrix setup token", password: PASSWORD }),
    status: {
      code: 400,
      why: "the service is set up already, which the route itself says",
      error: /already been set/,
    },
  },
  "POST /auth/login": { body: () => json({ password: PASSWORD }) },
  "POST /auth/logout": { consumes: true },
  // The same password again: the caller's session stays, every other one ends.
  "PUT /auth/password": {
    body: () => json({ currentPassword: PASSWORD, password: PASSWORD }),
    consumes: true,
  },
  "POST /subscriptions": {
    body: () => json({ name: "matrix created", url: freshFeed(), intervalHours: 0 }),
  },
  "PUT /subscriptions/:id": {
    body: () => json({ name: "matrix edited", url: freshFeed(), intervalHours: 0 }),
  },
  "DELETE /subscriptions/:id": { consumes: true },
  "POST /nodes/select": { body: () => json({ mode: "auto" }) },
  "POST /nodes/test": {
    body: async (fx) => json({ ids: [await fx.node()] }),
    status: {
      code: 503,
      why: "no core runs in this matrix, and a latency test goes through it",
      error: /Start the proxy core first/,
    },
  },
  "POST /rules": { body: () => json(freshRule()) },
  "PUT /rules/order": {
    body: async (fx) => {
      const list = must(await fx.call("GET", "/rules"), "GET /rules").json as {
        custom: Array<{ id: string }>;
      };
      return json({ ids: list.custom.map((r) => r.id) });
    },
  },
  "PUT /rules/:id": { body: () => json(freshRule()) },
  "DELETE /rules/:id": { consumes: true },
  "PUT /settings": {
    body: async (fx) => json(must(await fx.call("GET", "/settings"), "GET /settings").json),
  },
  "POST /system/restore": {
    body: async (fx) => json(must(await fx.call("GET", "/system/backup"), "GET backup").json),
  },
  "POST /system/service": { body: () => json({ action: "stop" }) },
  // No settings change waits for confirmation in the matrix (no core runs).
  "POST /system/confirm": { body: () => json({}), status: NO_PROBATION },
  "POST /system/probation/revert": { body: () => json({}), status: NO_PROBATION },
  "POST /system/core/install": {
    body: () => json({}),
    status: {
      code: 400,
      why: "the matrix's release document lists no asset for this machine",
      error: /has no mihomo-/,
    },
  },
  "POST /system/core/rollback": {
    body: () => json({}),
    status: { code: 400, why: "no core was installed before", error: /no previous core/ },
  },
  "POST /system/connectivity/test": { body: () => json({ siteId: "github" }) },
  "PUT /devices/:id": { body: () => json({ name: "matrix renamed" }) },
  "DELETE /devices/:id": { consumes: true },
  "GET /connections": { status: NO_CORE },
  "DELETE /connections": { status: NO_CORE },
  "DELETE /connections/:id": { status: NO_CORE },
};

const unknownSession = () => randomBytes(32).toString("base64url");
const sessionRules = (open: boolean): AccessRules<ProxyFixture> => ({
  open,
  credential: (fx) => ({ cookie: fx.cookie }),
  wrong: () => [
    {
      label: "unknown session cookie",
      headers: { cookie: `${SESSION_COOKIE}=${unknownSession()}` },
    },
  ],
});
const ACCESS: Record<ProxyAccess, AccessRules<ProxyFixture>> = {
  open: sessionRules(true),
  session: sessionRules(false),
};

const model: MatrixModel<ProxyAccess, ProxyFixture> = {
  port: h.port,
  rules: {
    crossSiteEveryMethod: false,
    csrfHeader: "x-csrf-token",
    csrfRequired: (route) => route.access === "session",
    wrongCsrf: randomBytes(32).toString("base64url"),
    anyHost: () => false,
    foreignOrigin: "http://evil.example",
    serviceOriginMismatches: [
      { label: "another name of this machine", value: `http://localhost:${h.port}` },
      { label: "foreign", value: "http://evil.example" },
    ],
    unknownHosts: [
      { label: "foreign name", value: `evil.example:${h.port}` },
      // A URL parser reads `evil.example@` as user info; the Host is still not this machine.
      { label: "this machine after an @", value: `evil.example@127.0.0.1:${h.port}` },
    ],
  },
  access: ACCESS,
  params: {
    "subscriptions/:id": (fx) => fx.subscription(),
    "rules/:id": (fx) => fx.rule(),
    // Connection ids come from a running core; none runs here, and the route answers 503
    // before it looks at the id.
    "connections/:id": () => "matrix-connection-1",
    "devices/:id": (fx) => fx.device(),
  },
  recipes: RECIPES,
  routes: h.service.ctx.routes.routes,
  fixture,
  baseHeaders: (route, fx) => ({
    host,
    ...(isStateChanging(route.method) ? { origin: h.origin, "x-csrf-token": fx.csrf } : {}),
  }),
};

const routes = model.routes;

describe("hostile request matrix of the proxy service", () => {
  it("knows the access kind and parameters of every route in the table", () => {
    expect(routes.length).toBeGreaterThan(30);
    expect(routes.flatMap((r) => unknownParts(model, r))).toEqual([]);
    expect(staleRecipes(model, routes)).toEqual([]);
  });

  for (const route of routes) {
    it(`${routeKey(route)} (${route.access}) answers each variation as the rules say`, async () => {
      const outcomes = await runRoute(model, route);
      expect(outcomes.filter((o) => !o.ok).map((o) => o.message)).toEqual([]);
      expect(outcomes.length).toBeGreaterThan(10);
    });
  }
});

describe("requests on one resource that arrive together", () => {
  for (const c of PROXY_CONCURRENT_CASES) it(c.name, () => c.run());
});
