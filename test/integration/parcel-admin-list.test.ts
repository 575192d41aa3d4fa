import { afterEach, describe, expect, it } from "vitest";
import type { Db } from "../../server/db/open.js";
import type { ParcelState } from "../../server/parcel/repos/parcels.js";
import { searchNames } from "../../server/parcel/domain/parcel-views.js";
import { startParcel, type Harness } from "../helpers/parcel-harness.js";
import { createUpload, uploadAndPublish } from "../helpers/parcel-uploads.js";
import { insertFileRow, insertParcelRow } from "../helpers/raw-db.js";

let h: Harness;
afterEach(async () => h?.close(true));

async function start(): Promise<void> {
  h = await startParcel();
  const r = await h.request("POST", "/admin/login", {
    body: { username: "admin", password: "admin-password-1" },
  });
  expect(r.status).toBe(200);
}

/** A parcel row written straight into the database (to control ids and order exactly). */
function insertParcel(
  db: Db,
  p: { id: string; state?: ParcelState; sortAt: number; names?: string[] },
): void {
  const names = p.names ?? [`${p.id}.txt`];
  insertParcelRow(db, {
    id: p.id,
    state: p.state ?? "published",
    createdAt: p.sortAt,
    sentAt: p.sortAt,
    searchNames: searchNames(names),
  });
  names.forEach((name, i) =>
    insertFileRow(db, { id: `${p.id}-f${i}`, parcelId: p.id, idx: i, name, size: 10 + i }),
  );
}

const list = async (query: string) => {
  const r = await h.request("GET", `/admin/parcels${query}`);
  expect([query, r.status]).toEqual([query, 200]);
  return r.json as {
    items: Array<{ id: string; state: string; files: unknown[]; bytes: number }>;
    total: number;
    page: number;
    page_size: number;
    pages: number;
  };
};
const ids = (r: { items: Array<{ id: string }> }) => r.items.map((i) => i.id);

describe("GET /admin/parcels", () => {
  it("answers an empty list as page 1 of 1", async () => {
    await start();
    expect(await list("")).toEqual({ items: [], total: 0, page: 1, page_size: 10, pages: 1 });
    expect(await list("?page=7&page_size=3&state=review&q=x")).toEqual({
      items: [],
      total: 0,
      page: 1,
      page_size: 3,
      pages: 1,
    });
  });

  it("pages newest first, ties by id descending, and clamps a page beyond the last", async () => {
    await start();
    const db = h.db;
    // p00..p11, sort_at rising with the number; p05/p06 share a time.
    for (let i = 0; i < 12; i++) {
      insertParcel(db, { id: `p${String(i).padStart(2, "0")}`, sortAt: 1000 + (i === 6 ? 5 : i) });
    }
    const first = await list("");
    expect(first.total).toBe(12);
    expect(first.pages).toBe(2);
    expect(ids(first)).toEqual([
      "p11",
      "p10",
      "p09",
      "p08",
      "p07",
      "p06",
      "p05",
      "p04",
      "p03",
      "p02",
    ]);
    expect(await list("?page=2")).toMatchObject({ page: 2, pages: 2, total: 12 });
    expect(ids(await list("?page=2"))).toEqual(["p01", "p00"]);
    const beyond = await list("?page=99&page_size=5");
    expect(beyond).toMatchObject({ page: 3, pages: 3, page_size: 5, total: 12 });
    expect(ids(beyond)).toEqual(["p01", "p00"]);
    expect(ids(await list("?page=2&page_size=5"))).toEqual(["p06", "p05", "p04", "p03", "p02"]);
    expect((await list("?page_size=100")).items).toHaveLength(12);
    expect((await list("?page_size=1&page=12")).items.map((i) => i.id)).toEqual(["p00"]);
  });

  it("answers 400 to a bad page, page_size or state", async () => {
    await start();
    for (const q of [
      "?page=0",
      "?page=-1",
      "?page=x",
      "?page=1.5",
      "?page=",
      "?page_size=0",
      "?page_size=101",
      "?page_size=abc",
      "?state=deleted",
      "?state=PUBLISHED",
      "?state=",
      "?state=published&state=review",
    ]) {
      const r = await h.request("GET", `/admin/parcels${q}`);
      expect([q, r.status]).toEqual([q, 400]);
      expect(r.json.error).toEqual(expect.any(String));
    }
  });

  it("filters by state and by q on file names (any case) or id fragments, literally", async () => {
    await start();
    const db = h.db;
    insertParcel(db, { id: "AAAxyz1", sortAt: 10, names: ["Holiday Photos.zip", "notes.txt"] });
    insertParcel(db, { id: "BBBxyz2", sortAt: 20, names: ["report_2026.pdf"], state: "review" });
    insertParcel(db, { id: "CCCqrs3", sortAt: 30, names: ["100% done.txt"], state: "expired" });
    insertParcel(db, { id: "DDDqrs4", sortAt: 40, names: ["reportX2026.pdf"], state: "revoked" });
    expect(ids(await list("?q=photos"))).toEqual(["AAAxyz1"]);
    expect(ids(await list("?q=HOLIDAY%20P"))).toEqual(["AAAxyz1"]);
    expect(ids(await list("?q=xyz"))).toEqual(["BBBxyz2", "AAAxyz1"]);
    expect(ids(await list("?q=BBB"))).toEqual(["BBBxyz2"]);
    // Ids are case-sensitive; names are not.
    expect(ids(await list("?q=bbb"))).toEqual([]);
    // % and _ are plain characters.
    expect(ids(await list("?q=%25"))).toEqual(["CCCqrs3"]);
    expect(ids(await list("?q=report_"))).toEqual(["BBBxyz2"]);
    expect(ids(await list("?q=_"))).toEqual(["BBBxyz2"]);
    // A '/' joins names internally; it never matches across two names.
    expect(ids(await list("?q=zip%2Fnotes"))).toEqual([]);
    expect(ids(await list("?q=.pdf"))).toEqual(["DDDqrs4", "BBBxyz2"]);
    expect(ids(await list("?state=review"))).toEqual(["BBBxyz2"]);
    expect(ids(await list("?state=revoked&q=pdf"))).toEqual(["DDDqrs4"]);
    expect(ids(await list("?state=published&q=pdf"))).toEqual([]);
    expect((await list("?q=")).total).toBe(4);
  });

  it("shows the admin view of parcels made through the API, unpublished ones by creation time", async () => {
    await start();
    const a = await createUpload(h, { "one.txt": 3, "two.txt": 4 });
    expect((await uploadAndPublish(h, a)).status).toBe(200);
    h.clock.advance(60_000);
    const b = await createUpload(h, { "three.txt": 5 });
    h.clock.advance(60_000);
    const c = await createUpload(h, { "four.txt": 6 });
    // Unpublished parcels sort by creation time, published ones by send time.
    const r = await list("");
    expect(ids(r)).toEqual([c.id, b.id, a.id]);
    expect(r.items[2]).toEqual({
      id: a.id,
      state: "published",
      files: [
        { id: a.files[0].id, name: "one.txt", size: 3, state: "ready" },
        { id: a.files[1].id, name: "two.txt", size: 4, state: "ready" },
      ],
      created_at: expect.any(Number),
      sent_at: expect.any(Number),
      expires_at: expect.any(Number),
      downloads_allowed: 10,
      downloads_left: 10,
      has_password: false,
      renew: true,
      bytes: 7,
      owner: "token",
    });
    expect(r.items[0]).toMatchObject({ state: "uploading", sent_at: null, bytes: 6 });
    // Publishing b later moves it to the top (send time).
    h.clock.advance(60_000);
    expect((await uploadAndPublish(h, b)).status).toBe(200);
    expect(ids(await list(""))).toEqual([b.id, c.id, a.id]);
    expect(ids(await list("?state=uploading"))).toEqual([c.id]);
    expect(ids(await list("?q=THREE"))).toEqual([b.id]);
    expect(ids(await list(`?q=${encodeURIComponent(a.id.slice(3, 9))}`))).toEqual([a.id]);
  });
});
