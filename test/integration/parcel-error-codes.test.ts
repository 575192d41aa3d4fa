import { afterEach, describe, expect, it } from "vitest";
import { CookieJar, type Harness } from "../helpers/parcel-harness.js";
import { bearer, createUpload, putBytes } from "../helpers/parcel-uploads.js";
import { adminJar, resolve, shareParcel, startPickup } from "./parcel-pickup-support.js";

/**
 * Every error answer of the parcel service names its failure with a stable code, and the
 * values its sentence mentions travel as params, so a page can say it in its own language.
 */

let h: Harness;
afterEach(async () => h?.close(true));

const setPolicy = (patch: Record<string, unknown>) =>
  h.service.ctx.setPolicy({ ...h.service.ctx.policy(), ...patch });

describe("parcel error answers", () => {
  it("name the field, the kind of problem and the bound of an invalid manifest", async () => {
    h = await startPickup();
    const empty = await h.request("POST", "/uploads", { body: { files: [] } });
    expect(empty.status).toBe(400);
    expect(empty.json).toEqual({
      error: "Invalid files: at least one file is required",
      code: "request.invalid",
      params: { field: "files", issue: "too_small", origin: "array", limit: 1 },
    });
    const jar = await adminJar(h);
    const extra = await h.request("PUT", "/admin/policy", { jar, body: { colour: "red" } });
    expect(extra.status).toBe(400);
    expect(extra.json).toEqual({
      error: "Unknown field: colour",
      code: "request.unknown_field",
      params: { field: "colour" },
    });
  });

  it("carry the policy's limit and the refused name with its reason", async () => {
    h = await startPickup();
    setPolicy({ max_files: 2, max_file_bytes: 1000 });
    const many = await h.request("POST", "/uploads", {
      body: { files: ["a", "b", "c"].map((name) => ({ name, size: 1 })) },
    });
    expect(many.json).toEqual({
      error: "A parcel may hold at most 2 files",
      code: "upload.too_many_files",
      params: { limit: 2 },
    });
    const slash = await h.request("POST", "/uploads", {
      body: {
        files: [
          { name: "ok.txt", size: 1 },
          { name: "a/b.txt", size: 1 },
        ],
      },
    });
    expect(slash.status).toBe(400);
    expect(slash.json).toMatchObject({
      code: "upload.file_name",
      params: { index: 2, name: "a/b.txt", reason: "slash" },
    });
    const big = await h.request("POST", "/uploads", {
      body: { files: [{ name: "big.iso", size: 1001 }] },
    });
    expect(big.status).toBe(413);
    expect(big.json).toMatchObject({
      code: "upload.file_too_large",
      params: { name: "big.iso", limit: 1000 },
    });
  });

  it("say how a pickup ended: unknown code, expired, withdrawn", async () => {
    h = await startPickup();
    const unknown = await resolve(h, new CookieJar(), "ZZZ-ZZZ");
    expect(unknown.json).toEqual({ error: "No parcel has this code", code: "pickup.code_unknown" });

    const soon = await shareParcel(h, { "a.txt": 2 }, { days: 1 });
    h.clock.advance(86400 * 1000 + 1000);
    const expired = await resolve(h, new CookieJar(), soon.code);
    expect(expired.status).toBe(410);
    expect(expired.json).toEqual({ error: "This parcel has expired", code: "parcel.expired" });

    const taken = await shareParcel(h, { "b.txt": 2 });
    const revoke = await h.request("POST", `/parcels/${taken.id}/revoke`, {
      headers: bearer(taken.manage_token),
    });
    expect(revoke.status).toBe(200);
    const withdrawn = await resolve(h, new CookieJar(), taken.code);
    expect(withdrawn.status).toBe(410);
    expect(withdrawn.json).toEqual({
      error: "This parcel has been withdrawn",
      code: "parcel.revoked",
    });
  });

  it("name a body longer than declared, an unready publish and the count behind it", async () => {
    h = await startPickup();
    const up = await createUpload(h, { "a.txt": 4, "b.txt": 4 });
    const long = await putBytes(h, up, 0, Buffer.from("12345"));
    expect(long.status).toBe(413);
    expect(long.json).toEqual({
      error: "The body is longer than the declared size",
      code: "upload.too_long",
    });
    const early = await h.request("POST", `/uploads/${up.id}/publish`, {
      headers: bearer(up.manage_token),
    });
    expect(early.status).toBe(409);
    expect(early.json).toEqual({
      error: "2 file(s) are not uploaded yet",
      code: "upload.not_ready",
      params: { count: 2 },
    });
  });

  it("code the framework's own answers: JSON, Host, unknown path, bad encoding", async () => {
    h = await startPickup();
    const json = await h.request("POST", "/uploads", {
      raw: Buffer.from("{nope"),
      headers: { "content-type": "application/json" },
    });
    expect(json.json).toEqual({
      error: "The request body is not valid JSON",
      code: "request.bad_json",
    });
    const host = await h.request("GET", "/policy", { headers: { host: "evil.example" } });
    expect(host.status).toBe(421);
    expect(host.json).toMatchObject({ code: "request.wrong_host" });
    const path = await h.request("GET", "/no/such/thing");
    expect(path.json).toEqual({ error: "No such endpoint", code: "request.no_endpoint" });
    const encoded = await h.request("GET", "/pickup/files/%ZZ/download");
    expect(encoded.json).toMatchObject({ code: "request.bad_encoding" });
  });
});
