import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AuditPageSchema,
  PARCEL_API,
  PolicySchema,
  PublicPolicySchema,
  RecipientViewSchema,
  StatsSchema,
} from "../../server/contract/parcel.js";
import type { ApiContract } from "../../server/contract/route.js";
import { openApiPath } from "../../server/http/openapi.js";
import { VERSION } from "../../server/version.js";
import { startParcel, type Harness, type Reply } from "../helpers/parcel-harness.js";
import { bearer, createUpload, putBytes } from "../helpers/parcel-uploads.js";

interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, { requestBody?: unknown; responses: object }>>;
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

let h: Harness;
beforeAll(async () => {
  h = await startParcel();
});
afterAll(async () => h?.close(true));

describe("GET /openapi.json of the parcel service", () => {
  it("describes every route the service registered, by its method, and no other", async () => {
    const r = await h.request("GET", "/openapi.json");
    expect(r.status).toBe(200);
    const doc = r.json as OpenApiDocument;
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info).toMatchObject({ title: "Gatehouse parcel API", version: VERSION });

    const registered = h.service.ctx.routes.routes.map(
      (route) => `${route.method.toLowerCase()} ${openApiPath(route.path)}`,
    );
    const described = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => METHODS.includes(key))
        .map((method) => `${method} ${path}`),
    );
    expect(registered.length).toBeGreaterThan(20);
    expect(described.sort()).toEqual(registered.sort());
  });

  it("is made from a contract keyed exactly like the route table", () => {
    const registered = h.service.ctx.routes.routes.map((r) => `${r.method} ${r.path}`);
    expect(Object.keys(PARCEL_API).sort()).toEqual(registered.sort());
  });

  it("carries the request body and answer of a route from its schemas", async () => {
    const doc = (await h.request("GET", "/openapi.json")).json as OpenApiDocument;
    const create = doc.paths["/uploads"].post;
    expect(JSON.stringify(create.requestBody)).toContain('"files"');
    expect(JSON.stringify(create.responses)).toContain("manage_token");
    const download = doc.paths["/pickup/files/{file}/download"].get;
    expect(JSON.stringify(download.responses)).toContain("application/octet-stream");
    expect(JSON.stringify(doc.paths["/pickup/archive"].get.responses)).toContain("application/zip");
  });

  it("answers the same document again without building it anew", async () => {
    const first = await h.request("GET", "/openapi.json");
    const second = await h.request("GET", "/openapi.json");
    expect(second.text).toBe(first.text);
  });
});

describe("answers of the parcel service against the contract", () => {
  /** Every JSON answer a route gave, keyed like PARCEL_API. */
  const seen = new Map<string, Reply[]>();
  const keep = (key: string, reply: Reply): Reply => {
    expect(reply.status, `${key}: ${reply.text}`).toBeLessThan(300);
    seen.set(key, [...(seen.get(key) ?? []), reply]);
    return reply;
  };

  beforeAll(async () => {
    keep("GET /health", await h.request("GET", "/health"));
    keep("GET /policy", await h.request("GET", "/policy"));
    const up = await createUpload(h, { "a.txt": 3, "b.txt": 4 }, { password: "pw-1234" });
    const created = await h.request("POST", "/uploads", {
      body: { files: [{ name: "c.txt", size: 2 }] },
    });
    keep("POST /uploads", created);
    const two = await createUpload(h, { "d.txt": 1, "e.txt": 1 });
    keep(
      "DELETE /uploads/:id/files/:file",
      await h.request("DELETE", `/uploads/${two.id}/files/${two.files[0].id}`, {
        headers: bearer(two.manage_token),
      }),
    );
    keep("PUT /uploads/:id/files/:file", await putBytes(h, up, 0, Buffer.from("abc")));
    keep("PUT /uploads/:id/files/:file", await putBytes(h, up, 1, Buffer.from("defg")));
    const auth = { headers: bearer(up.manage_token) };
    keep("GET /uploads/:id", await h.request("GET", `/uploads/${up.id}`, auth));
    const published = keep(
      "POST /uploads/:id/publish",
      await h.request("POST", `/uploads/${up.id}/publish`, auth),
    );
    keep("GET /mine", await h.request("GET", "/mine"));
    const code = keep(
      "POST /parcels/:id/code",
      await h.request("POST", `/parcels/${up.id}/code`, auth),
    );
    expect(code.json.code).not.toBe(published.json.code);
    const again = keep(
      "GET /parcels/:id/code",
      await h.request("GET", `/parcels/${up.id}/code`, auth),
    );
    expect(again.json.code).toBe(code.json.code);
    keep(
      "POST /pickup/resolve",
      await h.request("POST", "/pickup/resolve", {
        body: { code: code.json.code, password: "pw-1234" },
      }),
    );
    keep("GET /pickup", await h.request("GET", "/pickup"));

    keep("GET /admin/status", await h.request("GET", "/admin/status"));
    keep(
      "POST /admin/login",
      await h.request("POST", "/admin/login", {
        body: { username: "admin", password: "admin-password-1" },
      }),
    );
    keep("GET /admin/status", await h.request("GET", "/admin/status"));
    keep("GET /admin/stats", await h.request("GET", "/admin/stats"));
    // The inbox: opened with a password, a device sends one file, the operator reads it.
    const opened = keep(
      "POST /admin/inbox",
      await h.request("POST", "/admin/inbox", { body: { minutes: 30, password: "inbox pw" } }),
    );
    keep("GET /admin/inbox", await h.request("GET", "/admin/inbox"));
    keep(
      "POST /inbox/resolve",
      await h.request("POST", "/inbox/resolve", {
        body: { code: opened.json.code, password: "inbox pw" },
      }),
    );
    const sent = await h.request("POST", "/uploads", {
      body: { files: [{ name: "photo.jpg", size: 3 }], inbox: true },
    });
    keep("POST /uploads", sent);
    const sentAuth = { headers: bearer(sent.json.manage_token) };
    keep(
      "PUT /uploads/:id/files/:file",
      await h.request("PUT", `/uploads/${sent.json.id}/files/${sent.json.files[0].id}`, {
        ...sentAuth,
        raw: Buffer.from("jpg"),
      }),
    );
    keep(
      "POST /uploads/:id/publish",
      await h.request("POST", `/uploads/${sent.json.id}/publish`, sentAuth),
    );
    keep("GET /admin/inbox", await h.request("GET", "/admin/inbox"));
    keep("DELETE /admin/inbox", await h.request("DELETE", "/admin/inbox"));
    keep("GET /admin/inbox", await h.request("GET", "/admin/inbox"));
    keep("GET /admin/parcels", await h.request("GET", "/admin/parcels?page_size=5"));
    keep("GET /admin/policy", await h.request("GET", "/admin/policy"));
    keep(
      "PUT /admin/policy",
      await h.request("PUT", "/admin/policy", { body: { password_attempts: 1 } }),
    );
    // One wrong password now puts the parcel in review, which reissue answers.
    const wrong = await h.request("POST", "/pickup/resolve", {
      body: { code: code.json.code, password: "wrong" },
    });
    expect(wrong.status).toBeGreaterThanOrEqual(400);
    keep("GET /admin/runtime", await h.request("GET", "/admin/runtime"));
    keep(
      "PUT /admin/runtime",
      await h.request("PUT", "/admin/runtime", { body: { file_budget: 5000 } }),
    );
    keep(
      "POST /admin/parcels/:id/reissue",
      await h.request("POST", `/admin/parcels/${up.id}/reissue`),
    );
    keep(
      "POST /admin/files/:id/delete",
      await h.request("POST", `/admin/files/${up.files[0].id}/delete`),
    );
    keep(
      "POST /parcels/:id/revoke",
      await h.request("POST", `/parcels/${created.json.id}/revoke`, {
        headers: bearer(created.json.manage_token),
      }),
    );
    keep(
      "POST /admin/parcels/:id/delete",
      await h.request("POST", `/admin/parcels/${up.id}/delete`),
    );
    keep("POST /admin/cleanup", await h.request("POST", "/admin/cleanup"));
    keep("POST /admin/verify", await h.request("POST", "/admin/verify"));
    keep("GET /admin/verify", await h.request("GET", "/admin/verify"));
    keep("GET /admin/audit", await h.request("GET", "/admin/audit?page_size=100"));
    keep("GET /admin/errors", await h.request("GET", "/admin/errors"));
    keep(
      "PUT /admin/password",
      await h.request("PUT", "/admin/password", {
        body: { current_password: "admin-password-1", password: "admin-password-2" },
      }),
    );
    keep("POST /admin/logout", await h.request("POST", "/admin/logout"));
  });

  it("gives every JSON answer of every route the shape its contract schema says", () => {
    const jsonRoutes = Object.entries(PARCEL_API)
      .filter(([, route]) => Object.values(route.responses).some((answer) => answer.schema))
      .map(([key]) => key);
    expect([...seen.keys()].sort()).toEqual(jsonRoutes.sort());
    for (const [key, replies] of seen) {
      for (const reply of replies) {
        const contract: ApiContract = PARCEL_API;
        const schema = contract[key].responses[reply.status]?.schema;
        expect(schema, `${key} answered ${reply.status}`).toBeDefined();
        const result = schema!.safeParse(reply.json);
        expect(result.error?.issues ?? [], key).toEqual([]);
      }
    }
  });

  it("refuses an answer with a member more or a member less (the checks are strict)", () => {
    const stats = seen.get("GET /admin/stats")![0].json as Record<string, unknown>;
    expect(StatsSchema.safeParse(stats).success).toBe(true);
    expect(StatsSchema.safeParse({ ...stats, extra: 1 }).success).toBe(false);
    const { reserved_bytes: _gone, ...short } = stats;
    expect(StatsSchema.safeParse(short).success).toBe(false);

    const policy = seen.get("GET /policy")![0].json as Record<string, unknown>;
    expect(PublicPolicySchema.safeParse(policy).success).toBe(true);
    // The public view never carries the abuse thresholds of the administrator's policy.
    expect(PublicPolicySchema.safeParse({ ...policy, password_attempts: 5 }).success).toBe(false);
    const admin = seen.get("GET /admin/policy")![0].json as Record<string, unknown>;
    expect(PolicySchema.safeParse({ ...admin, public_url: "x" }).success).toBe(false);

    const view = seen.get("GET /pickup")![0].json as { files: Array<Record<string, unknown>> };
    expect(RecipientViewSchema.safeParse(view).success).toBe(true);
    const withHash = { ...view, files: view.files.map((f) => ({ ...f, sha256: "00" })) };
    expect(RecipientViewSchema.safeParse(withHash).success).toBe(false);

    const audit = seen.get("GET /admin/audit")![0].json as { items: unknown[] };
    expect(audit.items.length).toBeGreaterThan(5);
    expect(AuditPageSchema.safeParse({ ...audit, items: [{}] }).success).toBe(false);
  });
});
