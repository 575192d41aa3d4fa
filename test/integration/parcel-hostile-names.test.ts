import { afterEach, describe, expect, it } from "vitest";
import { startParcel, type Harness } from "../helpers/parcel-harness.js";

let h: Harness;
afterEach(async () => h?.close(true));

describe("file names that disguise themselves", () => {
  const post = (names: string[]) =>
    h.request("POST", "/uploads", {
      body: { files: names.map((name) => ({ name, size: 1 })) },
    });

  it("refuses bidi and invisible format characters, naming the file in the message", async () => {
    h = await startParcel();
    const r = await post(["ok.txt", "invoice\u202Efdp.exe"]);
    expect(r.status).toBe(400);
    expect(r.json.error).toContain("invoice<U+202E>fdp.exe");
    expect(r.json.error).not.toContain("\u202E");
    expect(r.json.error).toMatch(/text-direction/);
    for (const c of ["\u061C", "\u200B", "\u200F", "\u202A", "\u2060", "\u2069", "\uFEFF"]) {
      expect((await post([`a${c}b.txt`])).status, c.codePointAt(0)?.toString(16)).toBe(400);
    }
    expect(h.repos.stats().parcels.total).toBe(0);
  });

  it("refuses two names equal after NFC normalisation and case folding", async () => {
    h = await startParcel();
    const nfc = "caf\u00e9.txt";
    const nfd = "cafe\u0301.txt";
    const r = await post([nfc, nfd]);
    expect(r.status).toBe(400);
    expect(r.json.error).toContain(nfc);
    expect((await post(["CAF\u00c9.TXT", nfd])).status).toBe(400);
    expect((await post(["stra\u00dfe.txt", "STRASSE.TXT"])).status).toBe(400);
    expect((await post([nfc, "cafe.txt"])).status).toBe(201);
  });
});
