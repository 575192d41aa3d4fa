import { afterEach, describe, expect, it } from "vitest";
import { CookieJar, startParcel, type Harness, type Reply } from "../helpers/parcel-harness.js";
import { bearer, createUpload, type Created } from "../helpers/parcel-uploads.js";

let h: Harness;
afterEach(async () => h?.close(true));

/** Every owner endpoint of a parcel, as a request that needs the owner's credential. */
const ownerCalls: Array<[string, (h: Harness, id: string, file: string) => Promise<Reply>]> = [
  ["GET /uploads/:id", (h, id) => h.request("GET", `/uploads/${id}`, opts())],
  [
    "PUT /uploads/:id/files/:file",
    (h, id, file) =>
      h.request("PUT", `/uploads/${id}/files/${file}`, { ...opts(), raw: Buffer.from("x") }),
  ],
  ["POST /uploads/:id/publish", (h, id) => h.request("POST", `/uploads/${id}/publish`, opts())],
  ["POST /parcels/:id/revoke", (h, id) => h.request("POST", `/parcels/${id}/revoke`, opts())],
  ["POST /parcels/:id/code", (h, id) => h.request("POST", `/parcels/${id}/code`, opts())],
];

/** The credential the next owner call carries (set per case). */
let current: { jar: CookieJar; headers?: Record<string, string> } = { jar: new CookieJar() };
const opts = () => ({ jar: current.jar, headers: current.headers });

describe("owner credentials are judged before the parcel id", () => {
  let mine: Created;
  let theirs: Created;
  let visitorJar: CookieJar;
  let strangerJar: CookieJar;

  async function setup(): Promise<void> {
    h = await startParcel();
    visitorJar = new CookieJar();
    await h.request("GET", "/policy", { jar: visitorJar });
    const r = await h.request("POST", "/uploads", {
      body: { files: [{ name: "a", size: 1 }] },
      jar: visitorJar,
    });
    mine = r.json as Created;
    theirs = await createUpload(h, { b: 1 });
    strangerJar = new CookieJar();
    await h.request("GET", "/policy", { jar: strangerJar });
  }

  it.each(ownerCalls)("%s: 401, 403 and 404 in the documented order", async (_name, call) => {
    await setup();
    const expectStatus = async (
      credential: { jar: CookieJar; headers?: Record<string, string> },
      id: string,
      status: number,
    ) => {
      current = credential;
      const r = await call(h, id, id === mine.id ? mine.files[0].id : "nofile");
      expect(r.status, `${JSON.stringify(credential.headers)} on ${id}`).toBe(status);
      expect(typeof r.json.error).toBe("string");
    };
    const none = { jar: new CookieJar() };
    const unknownToken = { jar: new CookieJar(), headers: bearer("not-a-token-of-any-parcel") };
    const foreignToken = { jar: new CookieJar(), headers: bearer(theirs.manage_token) };
    const bogusCookie = new CookieJar();
    bogusCookie.cookies.set("pt_visitor", "forged-visitor-cookie");

    // No credential, or one that matches nothing: 401, whether or not the id exists.
    await expectStatus(none, mine.id, 401);
    await expectStatus(none, "no-such-parcel", 401);
    await expectStatus(unknownToken, mine.id, 401);
    await expectStatus(unknownToken, "no-such-parcel", 401);
    await expectStatus({ jar: bogusCookie }, mine.id, 401);
    await expectStatus({ jar: bogusCookie }, "no-such-parcel", 401);
    await expectStatus(
      { jar: new CookieJar(), headers: { authorization: "Basic eDp5" } },
      mine.id,
      401,
    );
    // A valid credential: 404 for an unknown id, 403 for another owner's parcel.
    await expectStatus(foreignToken, "no-such-parcel", 404);
    await expectStatus(foreignToken, mine.id, 403);
    await expectStatus({ jar: strangerJar }, "no-such-parcel", 404);
    await expectStatus({ jar: strangerJar }, mine.id, 403);
    // A presented Bearer token decides even next to the owner's own cookie.
    await expectStatus({ jar: visitorJar, headers: bearer("wrong") }, mine.id, 401);
    expect(h.repos.parcels.byId(mine.id)?.state).toBe("uploading");
  });

  it("answers 404 to the owner's token once cleanup removed the parcel, and 401 to tokens issued for nothing", async () => {
    await setup();
    const revoke = await h.request("POST", `/parcels/${theirs.id}/revoke`, {
      jar: new CookieJar(),
      headers: bearer(theirs.manage_token),
    });
    expect(revoke.status).toBe(200);
    const admin = new CookieJar();
    const login = await h.request("POST", "/admin/login", {
      jar: admin,
      body: { username: "admin", password: "admin-password-1" },
    });
    expect(login.status).toBe(200);
    expect((await h.request("POST", "/admin/cleanup", { jar: admin })).json.parcels).toBe(1);
    const as = (token: string, id: string) =>
      h.request("GET", `/uploads/${id}`, { jar: new CookieJar(), headers: bearer(token) });
    expect((await as(theirs.manage_token, theirs.id)).status).toBe(404);
    // The same token names nothing else, and a token of the right shape issued by nobody
    // is no credential at all.
    expect((await as(theirs.manage_token, "no-such-parcel")).status).toBe(401);
    expect((await as(theirs.manage_token, mine.id)).status).toBe(401);
    const nonce = theirs.manage_token.slice(0, 22);
    expect((await as(`${nonce}${"A".repeat(43)}`, theirs.id)).status).toBe(401);
    expect((await as(mine.manage_token, mine.id)).status).toBe(200);
  });

  it("still lets the owner in by cookie and by token", async () => {
    await setup();
    expect((await h.request("GET", `/uploads/${mine.id}`, { jar: visitorJar })).status).toBe(200);
    expect(
      (
        await h.request("GET", `/uploads/${mine.id}`, {
          jar: new CookieJar(),
          headers: bearer(mine.manage_token),
        })
      ).status,
    ).toBe(200);
  });
});

describe("origin and fetch-site headers are compared the way HTTP defines them", () => {
  const body = { files: [{ name: "a", size: 1 }] };
  const post = (headers: Record<string, string | undefined>) =>
    h.request("POST", "/uploads", { body, headers });

  it("refuses Sec-Fetch-Site cross-site in any letter case, on reads too", async () => {
    h = await startParcel();
    for (const value of ["cross-site", "Cross-Site", "CROSS-SITE", " cross-site "]) {
      expect((await post({ "sec-fetch-site": value })).status, value).toBe(403);
      expect(
        (await h.request("GET", "/policy", { headers: { "sec-fetch-site": value } })).status,
        value,
      ).toBe(403);
    }
    for (const value of ["same-origin", "Same-Origin", "none"])
      expect((await post({ "sec-fetch-site": value })).status, value).toBe(201);
  });

  it("accepts Origin and X-Service-Origin that differ from an entry only in scheme or host case", async () => {
    h = await startParcel();
    const port = h.port;
    for (const origin of [
      `HTTP://127.0.0.1:${port}`,
      `Http://LOCALHOST:${port}`,
      `http://localhost:${port}`,
    ])
      expect((await post({ origin })).status, origin).toBe(201);
    expect(
      (
        await post({
          origin: `http://127.0.0.1:${port}`,
          "x-service-origin": `HTTP://127.0.0.1:${port}`,
        })
      ).status,
    ).toBe(201);
    // The entry named in another case still decides the links handed out.
    const policy = await h.request("GET", "/policy", {
      headers: { "x-service-origin": `HTTP://LOCALHOST:${port}` },
    });
    expect(policy.json.public_url).toBe(`http://localhost:${port}`);
  });

  it("answers 403, never 500, to malformed, null or mismatching origins", async () => {
    h = await startParcel();
    const port = h.port;
    const refused: Array<Record<string, string>> = [
      { origin: "null" },
      { origin: "http://[" },
      { origin: "::::" },
      { origin: "http://%zz" },
      { origin: `http://127.0.0.1:${port}/path` },
      { origin: `http://user@127.0.0.1:${port}` },
      { origin: `ftp://127.0.0.1:${port}` },
      { origin: `https://127.0.0.1:${port}` },
      { origin: `http://127.0.0.1:${port}`, "x-service-origin": "http://[" },
      { origin: `http://127.0.0.1:${port}`, "x-service-origin": `http://localhost:${port}` },
      { origin: `http://127.0.0.1:${port}`, "x-service-origin": "null" },
    ];
    for (const headers of refused) {
      const r = await post(headers);
      expect(r.status, JSON.stringify(headers)).toBe(403);
      expect(typeof r.json.error).toBe("string");
    }
    // Reads with a garbage X-Service-Origin fall back to the Host's entry.
    const policy = await h.request("GET", "/policy", {
      headers: { "x-service-origin": "http://[" },
    });
    expect(policy.status).toBe(200);
    expect(policy.json.public_url).toBe(`http://127.0.0.1:${port}`);
    expect(h.repos.stats().parcels.total).toBe(0);
  });
});
