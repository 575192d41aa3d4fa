import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Route } from "../../server/http/route-table.js";
import {
  ADMIN_COOKIE,
  INBOX_COOKIE,
  PICKUP_COOKIE,
  VISITOR_COOKIE,
} from "../../server/parcel/http/identity.js";
import type { ParcelAccess } from "../../server/parcel/http/route-access.js";
import {
  isStateChanging,
  paramKeys,
  routeKey,
  runRoute,
  staleRecipes,
  unknownParts,
  type AccessRules,
  type Headers,
  type MatrixModel,
  type Recipe,
} from "../helpers/hostile-matrix.js";
import { CookieJar, startParcel, type Reply } from "../helpers/parcel-harness.js";

/**
 * Every route of the parcel service's route table, called the right way and then with one
 * hostile change at a time: no or unknown credentials, a foreign Origin or X-Service-Origin,
 * Sec-Fetch-Site: cross-site, no Origin, another letter case, a trailing slash, an unknown Host.
 */

const ADMIN_PASSWORD = "admin-password-1";
const PICKUP_PASSWORD = "matrix pickup password";

type ParcelState = "uploading" | "ready" | "published" | "review";

interface MadeParcel {
  id: string;
  token: string;
  files: Array<{ id: string; name: string; size: number }>;
}

interface ParcelFixture {
  /** `pt_visitor` of the browser that owns the parcel. */
  visitor: string;
  /** `pt_admin` of a fresh administrator session ("" when the route needs none). */
  admin: string;
  parcel: MadeParcel | null;
  code: string;
  /** `pt_pickup` for the parcel ("" unless it is published). */
  pickup: string;
  /** The open inbox's code and a session of it (when the route needs them). */
  inboxCode?: string;
  inboxSession?: string;
  /** A session of the inbox's code before it was reopened. */
  staleInboxSession?: string;
}

interface ParcelRecipe extends Recipe<ParcelFixture> {
  /** The state the route's parcel must be in (default: published, when it needs a parcel). */
  state?: ParcelState;
}

const h = await startParcel();
afterAll(() => h.close(true));

function must(r: Reply, status: number, what: string): Reply {
  if (r.status !== status) throw new Error(`fixture: ${what} answered ${r.status}: ${r.text}`);
  return r;
}

async function adminSession(): Promise<string> {
  const jar = new CookieJar();
  const r = await h.request("POST", "/admin/login", {
    jar,
    body: { username: "admin", password: ADMIN_PASSWORD },
  });
  must(r, 200, "admin login");
  return jar.cookies.get(ADMIN_COOKIE) ?? "";
}

function parcelOf(fx: ParcelFixture): MadeParcel {
  if (!fx.parcel) throw new Error("this route's fixture has no parcel");
  return fx.parcel;
}

/** A parcel owned by the visitor of `jar`, brought to `state` through the real API. */
async function makeParcel(
  jar: CookieJar,
  state: ParcelState,
): Promise<{ parcel: MadeParcel; code: string; pickup: string }> {
  const password = state === "review" ? { password: PICKUP_PASSWORD } : {};
  const created = must(
    await h.request("POST", "/uploads", {
      jar,
      body: {
        files: [
          { name: "alpha.txt", size: 5 },
          { name: "beta.txt", size: 3 },
        ],
        downloads: 1000,
        ...password,
      },
    }),
    201,
    "POST /uploads",
  ).json as { id: string; manage_token: string; files: MadeParcel["files"] };
  const parcel = { id: created.id, token: created.manage_token, files: created.files };
  const bearer = { authorization: `Bearer ${parcel.token}` };
  if (state === "uploading") return { parcel, code: "", pickup: "" };
  for (const f of parcel.files) {
    const put = await h.request("PUT", `/uploads/${parcel.id}/files/${f.id}`, {
      raw: Buffer.alloc(f.size, 0x61),
      headers: bearer,
    });
    must(put, 200, "PUT file");
  }
  if (state === "ready") return { parcel, code: "", pickup: "" };
  const published = await h.request("POST", `/uploads/${parcel.id}/publish`, { headers: bearer });
  const code = must(published, 200, "publish").json.code as string;
  const recipient = new CookieJar();
  if (state === "review") {
    // The policy set below locks a parcel at its first wrong password.
    const wrong = await h.request("POST", "/pickup/resolve", {
      jar: recipient,
      body: { code, password: "not the password" },
    });
    must(wrong, 401, "resolve with a wrong password");
    const view = await h.request("GET", `/uploads/${parcel.id}`, { headers: bearer });
    if (must(view, 200, "GET /uploads/:id").json.state !== "review") {
      throw new Error("fixture: the parcel did not go to review");
    }
    return { parcel, code, pickup: "" };
  }
  must(
    await h.request("POST", "/pickup/resolve", { jar: recipient, body: { code } }),
    200,
    "resolve",
  );
  return { parcel, code, pickup: recipient.cookies.get(PICKUP_COOKIE) ?? "" };
}

const RECIPES: Record<string, ParcelRecipe> = {
  "POST /uploads": { body: () => ({ json: { files: [{ name: "matrix.txt", size: 4 }] } }) },
  "PUT /uploads/:id/files/:file": {
    state: "uploading",
    body: (fx) => ({ raw: Buffer.alloc(parcelOf(fx).files[0].size, 0x6d) }),
  },
  "HEAD /uploads/:id/files/:file": { state: "uploading" },
  "DELETE /uploads/:id/files/:file": { state: "uploading", consumes: true },
  "PATCH /uploads/:id/files/:file": {
    state: "uploading",
    body: (fx) => ({ raw: Buffer.alloc(parcelOf(fx).files[0].size, 0x6d) }),
    status: {
      code: 415,
      why: "the matrix sends raw bodies as application/octet-stream, a resumed part must be application/offset+octet-stream",
      error: /upload\.content_type/,
    },
  },
  "POST /uploads/:id/publish": { state: "ready" },
  "POST /pickup/resolve": { state: "published", body: (fx) => ({ json: { code: fx.code } }) },
  "POST /admin/login": {
    body: () => ({ json: { username: "admin", password: ADMIN_PASSWORD } }),
  },
  "POST /admin/logout": { consumes: true },
  "POST /admin/parcels/:id/delete": { consumes: true },
  "POST /admin/files/:id/delete": { consumes: true },
  "POST /admin/parcels/:id/reissue": { state: "review", consumes: true },
  // The same values the matrix set up: the route answers, nothing changes.
  // The same password again: later variations still sign in with it.
  "PUT /admin/password": {
    body: () => ({ json: { current_password: ADMIN_PASSWORD, password: ADMIN_PASSWORD } }),
  },
  "PUT /admin/policy": { body: () => ({ json: { password_attempts: 1 } }) },
  "PUT /admin/runtime": { body: () => ({ json: { audit_retention_days: 90 } }) },
  "POST /admin/inbox": { body: () => ({ json: { minutes: 30 } }) },
  "POST /inbox/resolve": { body: (fx) => ({ json: { code: fx.inboxCode } }) },
};

/** The inbox opened by the administrator (`fx.admin`), and a device's session of it. */
async function openInbox(admin: string): Promise<{ code: string; session: string }> {
  const opened = await h.request("POST", "/admin/inbox", {
    jar: new CookieJar(),
    headers: cookie(ADMIN_COOKIE, admin),
    body: { minutes: 60 },
  });
  const code = must(opened, 200, "POST /admin/inbox").json.code as string;
  const device = new CookieJar();
  must(
    await h.request("POST", "/inbox/resolve", { jar: device, body: { code } }),
    200,
    "POST /inbox/resolve",
  );
  return { code, session: device.cookies.get(INBOX_COOKIE) ?? "" };
}

async function fixture(route: Route<MatrixAccess>): Promise<ParcelFixture> {
  const jar = new CookieJar();
  must(await h.request("GET", "/policy", { jar }), 200, "GET /policy");
  const visitor = jar.cookies.get(VISITOR_COOKIE) ?? "";
  const admin =
    route.access === "admin" || route.access === "admin-session" ? await adminSession() : "";
  if (route.access === "inbox-upload" || routeKey(route) === "POST /inbox/resolve") {
    const owner = admin || (await adminSession());
    const stale = route.access === "inbox-upload" ? (await openInbox(owner)).session : undefined;
    const inbox = await openInbox(owner);
    return {
      visitor,
      admin,
      parcel: null,
      code: "",
      pickup: "",
      inboxCode: inbox.code,
      inboxSession: inbox.session,
      staleInboxSession: stale,
    };
  }
  const needsParcel =
    paramKeys(route.path).length > 0 || ["owner", "owner-token", "pickup"].includes(route.access);
  const state = RECIPES[routeKey(route)]?.state ?? (needsParcel ? "published" : undefined);
  if (!state) return { visitor, admin, parcel: null, code: "", pickup: "" };
  return { visitor, admin, ...(await makeParcel(jar, state)) };
}

const cookie = (name: string, value: string): Headers => ({ cookie: `${name}=${value}` });
const unknownValue = () => randomBytes(32).toString("base64url");
const visitorRules = (open: boolean): AccessRules<ParcelFixture> => ({
  open,
  credential: (fx) => cookie(VISITOR_COOKIE, fx.visitor),
  wrong: () => [
    { label: "unknown visitor cookie", headers: cookie(VISITOR_COOKIE, unknownValue()) },
  ],
});
const adminRules = (open: boolean): AccessRules<ParcelFixture> => ({
  open,
  credential: (fx) => cookie(ADMIN_COOKIE, fx.admin),
  wrong: () => [{ label: "unknown admin cookie", headers: cookie(ADMIN_COOKIE, unknownValue()) }],
});

/**
 * Not an access kind of the route table: `POST /uploads` with `"inbox": true`, a public route
 * whose handler asks for the inbox session cookie (403 without a current one).
 */
type MatrixAccess = ParcelAccess | "inbox-upload";

const ACCESS: Record<MatrixAccess, AccessRules<ParcelFixture>> = {
  public: visitorRules(true),
  visitor: visitorRules(false),
  // The owner's visitor cookie is the browser's credential, the one an Origin check protects.
  owner: {
    open: false,
    credential: (fx) => cookie(VISITOR_COOKIE, fx.visitor),
    wrong: () => [
      { label: "unknown visitor cookie", headers: cookie(VISITOR_COOKIE, unknownValue()) },
      { label: "unknown Bearer token", headers: { authorization: `Bearer ${unknownValue()}` } },
    ],
  },
  // The manage token itself: it is the key that opens the parcel's sealed code.
  "owner-token": {
    open: false,
    credential: (fx) => ({ authorization: `Bearer ${parcelOf(fx).token}` }),
    wrong: () => [
      { label: "unknown Bearer token", headers: { authorization: `Bearer ${unknownValue()}` } },
    ],
  },
  pickup: {
    open: false,
    credential: (fx) => cookie(PICKUP_COOKIE, fx.pickup),
    wrong: () => [
      { label: "unknown pickup cookie", headers: cookie(PICKUP_COOKIE, unknownValue()) },
    ],
  },
  "admin-session": adminRules(true),
  admin: adminRules(false),
  "inbox-upload": {
    open: false,
    refusal: 403,
    credential: (fx) => cookie(INBOX_COOKIE, fx.inboxSession ?? ""),
    wrong: (fx) => [
      { label: "unknown inbox session", headers: cookie(INBOX_COOKIE, unknownValue()) },
      {
        label: "session of the code before a reopen",
        headers: cookie(INBOX_COOKIE, fx.staleInboxSession ?? ""),
      },
      {
        label: "the session under another cookie's name",
        headers: cookie(`${INBOX_COOKIE}_http`, fx.inboxSession ?? ""),
      },
    ],
  },
};

const model: MatrixModel<MatrixAccess, ParcelFixture> = {
  port: h.port,
  rules: {
    crossSiteEveryMethod: true,
    csrfHeader: "origin",
    csrfRequired: () => true,
    anyHost: (route) => route.method === "GET" && route.path === "/health",
    foreignOrigin: "http://evil.example",
    serviceOriginMismatches: [
      { label: "another entry", value: `http://localhost:${h.port}` },
      { label: "foreign", value: "http://evil.example" },
    ],
    unknownHosts: [
      { label: "foreign name", value: `evil.example:${h.port}` },
      // A URL parser reads `evil.example@` as user info; the Host is still not this machine.
      { label: "this machine after an @", value: `evil.example@127.0.0.1:${h.port}` },
    ],
  },
  access: ACCESS,
  // `:id` names a parcel after `uploads` and `parcels`, a file after `files`.
  params: {
    "uploads/:id": (fx) => parcelOf(fx).id,
    "parcels/:id": (fx) => parcelOf(fx).id,
    "files/:file": (fx) => parcelOf(fx).files[0].id,
    "files/:id": (fx) => parcelOf(fx).files[0].id,
  },
  recipes: RECIPES,
  routes: h.service.ctx.routes.routes,
  fixture,
  baseHeaders: (route) => ({
    host: `127.0.0.1:${h.port}`,
    ...(isStateChanging(route.method) ? { origin: h.origin } : {}),
  }),
};

const routes = model.routes;

describe("hostile request matrix of the parcel service", () => {
  beforeAll(async () => {
    // One wrong password locks a parcel, so a parcel in review costs one pickup failure.
    const admin = await adminSession();
    const r = await h.request("PUT", "/admin/policy", {
      jar: new CookieJar(),
      headers: cookie(ADMIN_COOKIE, admin),
      body: { password_attempts: 1 },
    });
    must(r, 200, "PUT /admin/policy");
  });

  it("knows the access kind and parameters of every route in the table", () => {
    expect(routes.length).toBeGreaterThan(20);
    expect(routes.flatMap((r) => unknownParts(model, r))).toEqual([]);
    expect(staleRecipes(model, routes)).toEqual([]);
  });

  it("refuses to run a route whose access kind or parameter it does not know, naming both", async () => {
    const route: Route<ParcelAccess> = {
      method: "POST",
      path: "/admin/visitors/:visitor/ban",
      access: "moderator" as ParcelAccess,
    };
    const problems = [
      'POST /admin/visitors/:visitor/ban: access kind "moderator" has no rules in the hostile matrix',
      'POST /admin/visitors/:visitor/ban: parameter "visitors/:visitor" has no value in the hostile matrix',
    ];
    expect(unknownParts(model, route)).toEqual(problems);
    await expect(runRoute(model, route)).rejects.toThrow(problems.join("; "));
  });

  it('POST /uploads with "inbox": true (inbox session) answers each variation as the rules say', async () => {
    const inboxUpload: Route<MatrixAccess> = {
      method: "POST",
      path: "/uploads",
      access: "inbox-upload",
    };
    const outcomes = await runRoute(
      {
        ...model,
        recipes: {
          "POST /uploads": {
            body: () => ({ json: { files: [{ name: "to-inbox.jpg", size: 4 }], inbox: true } }),
          },
        },
      },
      inboxUpload,
    );
    expect(outcomes.filter((o) => !o.ok).map((o) => o.message)).toEqual([]);
    expect(outcomes.map((o) => o.label)).toContain(
      "wrong credentials (session of the code before a reopen)",
    );
  });

  for (const route of routes) {
    it(`${routeKey(route)} (${route.access}) answers each variation as the rules say`, async () => {
      const outcomes = await runRoute(model, route);
      expect(outcomes.filter((o) => !o.ok).map((o) => o.message)).toEqual([]);
      expect(outcomes.length).toBeGreaterThan(10);
    });
  }
});
