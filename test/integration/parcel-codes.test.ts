import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ManualClock } from "../../server/clock.js";
import { openDatabase, type Db } from "../../server/db/open.js";
import {
  CODE_ALPHABET,
  formatCode,
  generateCode,
  normalizeCode,
} from "../../server/parcel/domain/codes.js";
import { hmacHex } from "../../server/parcel/domain/secrets.js";
import { codeHash, issueCode } from "../../server/parcel/domain/share.js";
import { ParcelsRepo } from "../../server/parcel/repos/parcels.js";
import { createParcelService, type ParcelService } from "../../server/parcel/service.js";
import { insertParcelRow, setParcelState } from "../helpers/raw-db.js";

// generateCode stays real unless a test queues fixed values (to force collisions).
vi.mock("../../server/parcel/domain/codes.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../server/parcel/domain/codes.js")>();
  return { ...real, generateCode: vi.fn(real.generateCode) };
});

describe("pickup code format", () => {
  it("generates codes of the asked length from Crockford base32", () => {
    for (const len of [6, 11, 16]) {
      const code = generateCode(len);
      expect(code).toHaveLength(len);
      for (const ch of code) expect(CODE_ALPHABET).toContain(ch);
    }
    expect(CODE_ALPHABET).not.toMatch(/[ILOU]/);
  });

  it("normalises case, separators, spaces and look-alike letters", () => {
    expect(normalizeCode("abc-123")).toBe("ABC123");
    expect(normalizeCode(" a b c 1 2 3 ")).toBe("ABC123");
    expect(normalizeCode("iLo-1l0")).toBe("110110");
    expect(normalizeCode("ABU123")).toBeNull();
    expect(normalizeCode("---")).toBeNull();
  });

  it("groups 6 characters by 3 and longer codes by 4", () => {
    expect(formatCode("ABC123")).toBe("ABC-123");
    expect(formatCode("ABCD1234")).toBe("ABCD-1234");
    expect(formatCode("ABCD12345")).toBe("ABCD-1234-5");
  });
});

describe("issueCode and codeHash", () => {
  let service: ParcelService;
  /** The test's own connection to the service's database. */
  let db: Db;
  let parcels: ParcelsRepo;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "gatehouse-codes-"));
    service = await createParcelService({
      dataDir: dir,
      entries: ["http://127.0.0.1:8000"],
      clock: new ManualClock(Date.UTC(2026, 0, 1)),
      adminPassword: "admin-password-1",
      cleanupIntervalMs: 0,
      log: () => undefined,
    });
    db = openDatabase(join(dir, "parcel", "parcel.db"));
    parcels = new ParcelsRepo(db);
    for (let i = 0; i < 200; i++)
      insertParcelRow(db, { id: `p${i}`, days: 1, downloadsAllowed: 1, expiresAt: 99 });
  });
  afterAll(async () => {
    db.close();
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("keys the hash and normalises the input first", () => {
    const ctx = service.ctx;
    expect(codeHash(ctx, "ABC123")).toBe(hmacHex(ctx.keys.code, "ABC123"));
    expect(codeHash(ctx, "abc-123")).toBe(codeHash(ctx, "ABC123"));
    expect(codeHash(ctx, "ABC-I2O")).toBe(codeHash(ctx, "ABC120"));
    expect(codeHash(ctx, "ABC123")).not.toBe(hmacHex(Buffer.alloc(32), "ABC123"));
  });

  it("stores only the keyed hash, bumps code_gen and hands out distinct codes", () => {
    const ctx = service.ctx;
    const codes = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const code = issueCode(ctx, `p${i}`);
      expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{6}$/);
      codes.add(code);
      const row = parcels.byId(`p${i}`);
      expect([row?.code_hash, row?.code_gen]).toEqual([codeHash(ctx, code), 1]);
    }
    expect(codes.size).toBe(200);
    issueCode(ctx, "p0");
    expect(parcels.byId("p0")?.code_gen).toBe(2);
    expect(() => issueCode(ctx, "missing")).toThrow(/No such parcel/);
  });

  it("skips a code held by a parcel that can still be picked up, but not one of an ended parcel", () => {
    const ctx = service.ctx;
    const gen = vi.mocked(generateCode);
    gen.mockReturnValueOnce("AAAAAA");
    expect(issueCode(ctx, "p10")).toBe("AAAAAA");
    gen.mockReturnValueOnce("AAAAAA").mockReturnValueOnce("BBBBBB");
    expect(issueCode(ctx, "p11")).toBe("BBBBBB");
    setParcelState(db, "p10", "review");
    gen.mockReturnValueOnce("AAAAAA").mockReturnValueOnce("CCCCCC");
    expect(issueCode(ctx, "p12")).toBe("CCCCCC");
    setParcelState(db, "p10", "expired");
    gen.mockReturnValueOnce("AAAAAA");
    expect(issueCode(ctx, "p13")).toBe("AAAAAA");
    // A new code for the holder itself never repeats its current one.
    gen.mockReturnValueOnce("BBBBBB").mockReturnValueOnce("DDDDDD");
    expect(issueCode(ctx, "p11")).toBe("DDDDDD");
  });
});
