import { afterEach, describe, expect, it } from "vitest";
import { auditOf, startParcel, type Harness } from "../helpers/parcel-harness.js";
import { bearer, createUpload, uploadAndPublish } from "../helpers/parcel-uploads.js";

let h: Harness;
afterEach(async () => h?.close(true));

async function admin(): Promise<void> {
  const r = await h.request("POST", "/admin/login", {
    body: { username: "admin", password: "admin-password-1" },
  });
  expect(r.status).toBe(200);
}

const putPolicy = (body: unknown) => h.request("PUT", "/admin/policy", { body });
const policyAudits = () => auditOf(h, "admin.policy").length;

describe("PUT /admin/policy refuses members that contradict each other", () => {
  it("answers 400 naming both fields when the default term is longer than the longest", async () => {
    h = await startParcel();
    await admin();
    const before = (await h.request("GET", "/admin/policy")).json;
    const r = await putPolicy({ default_days: 40, max_days: 30 });
    expect(r.status).toBe(400);
    expect(r.json.error).toBe("default_days (40) must not be more than max_days (30)");
    expect(r.json.code).toBe("policy.conflict");
    expect(r.json.conflicts).toEqual([
      { field: "default_days", value: 40, limit_field: "max_days", limit: 30, rule: "at_most" },
    ]);
    // Nothing was saved or audited.
    expect((await h.request("GET", "/admin/policy")).json).toEqual(before);
    expect(policyAudits()).toBe(0);
  });

  it("checks the merged result of a partial PUT against the saved members", async () => {
    h = await startParcel();
    await admin();
    // Saved: default_days 7, default_downloads 10. Lowering only the maximum contradicts them.
    const days = await putPolicy({ max_days: 5 });
    expect(days.status).toBe(400);
    expect(days.json.error).toBe("default_days (7) must not be more than max_days (5)");
    const downloads = await putPolicy({ default_downloads: 1001 });
    expect(downloads.status).toBe(400);
    expect(downloads.json.error).toBe(
      "default_downloads (1001) must not be more than max_downloads (1000)",
    );
    const cap = await putPolicy({ renew_cap_days: 2 });
    expect(cap.status).toBe(400);
    expect(cap.json.error).toBe("renew_cap_days (2) must be at least renew_days (3)");
    // Every contradiction of one request is named, not only the first.
    const all = await putPolicy({ max_days: 5, max_downloads: 4, renew_cap_days: 2 });
    expect(all.status).toBe(400);
    expect(all.json.conflicts.map((c: { field: string }) => c.field)).toEqual([
      "default_days",
      "default_downloads",
      "renew_cap_days",
    ]);
    expect(all.json.error).toBe(
      "default_days (7) must not be more than max_days (5); " +
        "default_downloads (10) must not be more than max_downloads (4); " +
        "renew_cap_days (2) must be at least renew_days (3)",
    );
    expect(policyAudits()).toBe(0);
  });

  it("accepts a default equal to its maximum, and both moved in one request", async () => {
    h = await startParcel();
    await admin();
    const equal = await putPolicy({ max_days: 7, max_downloads: 10 });
    expect(equal.status).toBe(200);
    expect(equal.json).toMatchObject({ default_days: 7, max_days: 7, max_downloads: 10 });
    const both = await putPolicy({ max_days: 3, default_days: 2 });
    expect(both.status).toBe(200);
    expect(both.json).toMatchObject({ default_days: 2, max_days: 3 });
    // Uploads that keep the defaults are admitted under the new policy.
    const up = await createUpload(h, { "a.txt": 1 });
    const now = h.clock.now() / 1000;
    expect((await uploadAndPublish(h, up)).json.expires_at).toBe(Math.floor(now) + 2 * 86400);
  });
});

describe("PUT /admin/policy accepts one limit that hides another", () => {
  it("takes a tight parcel, daily or renewal limit alone; the smaller limit is the one enforced", async () => {
    h = await startParcel();
    await admin();
    // Each alone, as a script sets one tight limit: the console's form refuses these.
    for (const body of [
      { max_parcel_bytes: 150 },
      { daily_upload_bytes: 1000 },
      { renew_cap_days: 4 },
    ]) {
      const r = await putPolicy(body);
      expect(r.status, JSON.stringify(body)).toBe(200);
      expect(r.json).toMatchObject(body);
    }
    expect(policyAudits()).toBe(3);
    // A file within max_file_bytes but over the parcel limit is still refused.
    const big = await h.request("POST", "/uploads", {
      body: { files: [{ name: "a.bin", size: 200 }] },
    });
    expect(big.status).toBe(413);
  });
});

describe("renew on download: one default, the policy's", () => {
  it("gives uploads that leave renew out the policy's default_renew", async () => {
    h = await startParcel();
    await admin();
    const pub = await h.request("GET", "/policy");
    expect(pub.json.default_renew).toBe(true);
    expect((await h.request("GET", "/admin/policy")).json.default_renew).toBe(true);

    const on = await createUpload(h, { "on.txt": 1 });
    const onView = await h.request("GET", `/uploads/${on.id}`, {
      headers: bearer(on.manage_token),
    });
    expect(onView.json.renew).toBe(true);

    const r = await putPolicy({ default_renew: false });
    expect(r.status).toBe(200);
    expect((await h.request("GET", "/policy")).json.default_renew).toBe(false);
    const off = await createUpload(h, { "off.txt": 1 });
    const offView = await h.request("GET", `/uploads/${off.id}`, {
      headers: bearer(off.manage_token),
    });
    expect(offView.json.renew).toBe(false);
    // An explicit choice still wins over the default.
    const chosen = await createUpload(h, { "chosen.txt": 1 }, { renew: true });
    const chosenView = await h.request("GET", `/uploads/${chosen.id}`, {
      headers: bearer(chosen.manage_token),
    });
    expect(chosenView.json.renew).toBe(true);
    expect((await putPolicy({ default_renew: "no" })).status).toBe(400);
  });
});

describe("share addresses keep the wire shape", () => {
  it("answers {label, url} per entry, labelled for people in English", async () => {
    h = await startParcel({
      entries: [
        "http://127.0.0.1:PORT",
        "http://localhost:PORT",
        "http://192.168.1.20:PORT",
        "https://192.168.1.20",
        "http://[::1]:PORT",
        "https://gw.example",
      ],
    });
    const up = await createUpload(h, { "a.txt": 1 });
    const r = await uploadAndPublish(h, up);
    expect(r.status).toBe(200);
    const items = r.json.urls as Array<Record<string, string>>;
    for (const item of items) expect(Object.keys(item).sort()).toEqual(["label", "url"]);
    expect(items.map((i) => i.label)).toEqual([
      "This computer",
      "This computer (localhost)",
      "LAN 192.168.1.20",
      "LAN 192.168.1.20 (HTTPS)",
      "This computer",
      "gw.example (HTTPS)",
    ]);
  });
});
