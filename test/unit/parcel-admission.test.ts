import { describe, expect, it } from "vitest";
import { DomainError } from "../../server/domain-errors.js";
import { HttpError } from "../../server/http/errors.js";
import {
  admissionProblem,
  fileNameProblem,
  nameKey,
  printableName,
} from "../../server/parcel/domain/admission.js";
import { parseManifest } from "../../server/parcel/http/manifest.js";
import { DEFAULT_POLICY, type Policy } from "../../server/parcel/domain/policy.js";
import { parcelStatus } from "../helpers/error-status.js";

const policy: Policy = {
  ...DEFAULT_POLICY,
  max_files: 3,
  max_file_bytes: 100,
  max_parcel_bytes: 150,
  default_days: 7,
  max_days: 30,
  default_downloads: 10,
  max_downloads: 20,
};

function statusOf(body: unknown, p: Policy = policy): number {
  try {
    parseManifest(p, body);
    return 200;
  } catch (err) {
    if (err instanceof HttpError || err instanceof DomainError) return parcelStatus(err);
    throw err;
  }
}

describe("fileNameProblem", () => {
  it("accepts ordinary names up to 255 UTF-8 bytes", () => {
    for (const ok of [
      "a",
      "report (final).pdf",
      ".hidden",
      "...",
      "x".repeat(255),
      "ü".repeat(127),
      "😀.png",
    ])
      expect(fileNameProblem(ok), ok).toBeNull();
  });

  it("refuses empty, long, separator, control, dot and broken names", () => {
    for (const bad of [
      "",
      "x".repeat(256),
      "ü".repeat(128),
      "a/b",
      "a\\b",
      "nul\u0000",
      "line\nbreak",
      "del\u007f",
      "c1\u0085",
      ".",
      "..",
      "half\ud83d",
      "\ude00tail",
    ])
      expect(fileNameProblem(bad), JSON.stringify(bad)).toEqual(expect.any(String));
  });
});

describe("invisible and text-direction characters in file names", () => {
  const refused = [
    0x061c,
    ...Array.from({ length: 5 }, (_, i) => 0x200b + i),
    ...Array.from({ length: 5 }, (_, i) => 0x202a + i),
    ...Array.from({ length: 10 }, (_, i) => 0x2060 + i),
    0xfeff,
  ];

  it("refuses every one of them, anywhere in the name", () => {
    for (const cp of refused) {
      const c = String.fromCodePoint(cp);
      for (const name of [`${c}a.txt`, `a${c}.txt`, `a.txt${c}`])
        expect(fileNameProblem(name), cp.toString(16)).toMatch(/text-direction/);
    }
  });

  it("accepts their neighbours and ordinary non-Latin names", () => {
    for (const cp of [0x061b, 0x200a, 0x2010, 0x2029, 0x202f, 0x205f, 0x206a, 0xfefe, 0xff01])
      expect(fileNameProblem(`a${String.fromCodePoint(cp)}b`), cp.toString(16)).toBeNull();
    for (const ok of ["عربي.txt", "עברית.pdf", "日本語.doc", "caf\u00e9.txt"])
      expect(fileNameProblem(ok), ok).toBeNull();
  });

  it("shows a refused name with its hidden characters spelled out", () => {
    expect(printableName("invoice\u202Efdp.exe")).toBe("invoice<U+202E>fdp.exe");
    expect(printableName("a\u0000b\ud800")).toBe("a<U+0000>b<U+D800>");
    expect(printableName("😀.png")).toBe("😀.png");
    expect(printableName("😀".repeat(100))).toBe(`${"😀".repeat(80)}…`);
  });
});

describe("nameKey", () => {
  it("makes names equal after NFC normalisation and case folding the same key", () => {
    const same = [
      ["caf\u00e9.txt", "cafe\u0301.txt"],
      ["CAF\u00c9.TXT", "cafe\u0301.txt"],
      ["Report.PDF", "report.pdf"],
      ["stra\u00dfe", "STRASSE"],
      ["\u03a3\u03bf\u03c6\u03af\u03b1\u03c2", "\u03c3\u03bf\u03c6\u03af\u03b1\u03c3"],
      ["\u212a.txt", "k.txt"],
    ];
    for (const [a, b] of same) expect(nameKey(a), `${a} / ${b}`).toBe(nameKey(b));
    for (const [a, b] of [
      ["cafe.txt", "caf\u00e9.txt"],
      ["a.txt", "a.txt "],
    ])
      expect(nameKey(a)).not.toBe(nameKey(b));
  });
});

describe("parseManifest", () => {
  it("names the refused file and both colliding names in its messages", () => {
    const message = (body: unknown) => {
      try {
        parseManifest(policy, body);
      } catch (err) {
        if (err instanceof HttpError || err instanceof DomainError) return err.message;
        throw err;
      }
      return "";
    };
    expect(message({ files: [{ name: "a/b", size: 1 }] })).toBe(
      'The name of file 1 ("a/b") is refused: a file name must not contain / or \\.',
    );
    expect(
      message({
        files: [
          { name: "caf\u00e9.txt", size: 1 },
          { name: "CAFE\u0301.TXT", size: 1 },
        ],
      }),
    ).toMatch(/^The file names "caf\u00e9\.txt" and "CAFE\u0301\.TXT" are the same name/);
  });

  it("applies the policy defaults", () => {
    const m = parseManifest(policy, {
      files: [
        { name: "a", size: 5 },
        { name: "b", size: 0 },
      ],
    });
    expect(m).toEqual({
      files: [
        { name: "a", size: 5 },
        { name: "b", size: 0 },
      ],
      days: 7,
      downloads: 10,
      password: null,
      renew: true,
      totalBytes: 5,
      inbox: false,
    });
    const given = parseManifest(policy, {
      files: [{ name: "a", size: 1 }],
      days: 30,
      downloads: 20,
      password: "pw",
      renew: false,
    });
    expect(given).toMatchObject({ days: 30, downloads: 20, password: "pw", renew: false });
  });

  it("answers 400 for shape and range errors and 413 for sizes", () => {
    const f = (size: number) => ({ name: `f${size}`, size });
    expect(statusOf({ files: [] })).toBe(400);
    expect(statusOf({ files: [f(1), f(2), f(3), f(4)] })).toBe(400);
    expect(
      statusOf({
        files: [
          { name: "A", size: 1 },
          { name: "a", size: 1 },
        ],
      }),
    ).toBe(400);
    expect(statusOf({ files: [f(1)], days: 31 })).toBe(400);
    expect(statusOf({ files: [f(1)], downloads: 21 })).toBe(400);
    expect(statusOf({ files: [f(1)], days: 0 })).toBe(400);
    expect(statusOf({ files: [f(101)] })).toBe(413);
    expect(statusOf({ files: [f(100)] })).toBe(200);
    expect(statusOf({ files: [f(100), f(51)] })).toBe(413);
    expect(statusOf({ files: [f(100), f(50)] })).toBe(200);
    expect(statusOf({ files: [f(1)] }, { ...policy, require_password: true })).toBe(400);
    expect(statusOf({ files: [f(1)], password: "x" }, { ...policy, require_password: true })).toBe(
      200,
    );
    expect(statusOf("nope")).toBe(400);
    expect(statusOf(null)).toBe(400);
  });
});

describe("admissionProblem", () => {
  const runtime = { file_budget: 10, data_budget_bytes: 1000, disk_headroom_bytes: 100 };
  const usage = { storedBytes: 300, reservedBytes: 200, files: 4, diskFree: 1000 };

  it("admits a request that exactly fills every budget", () => {
    expect(admissionProblem(usage, { bytes: 500, files: 6 }, runtime)).toBeNull();
    expect(
      admissionProblem({ ...usage, diskFree: 800 }, { bytes: 500, files: 1 }, runtime),
    ).toBeNull();
  });

  it("names the budget that a request would exceed", () => {
    expect(admissionProblem(usage, { bytes: 1, files: 7 }, runtime)).toMatch(/file budget/);
    expect(admissionProblem(usage, { bytes: 501, files: 1 }, runtime)).toMatch(/data budget/);
    // free 799 - headroom 100 - reserved 200 = 499 left
    expect(
      admissionProblem({ ...usage, diskFree: 799 }, { bytes: 500, files: 1 }, runtime),
    ).toMatch(/disk/);
  });

  it("refuses everything once a budget is set below current usage", () => {
    expect(
      admissionProblem(usage, { bytes: 0, files: 1 }, { ...runtime, data_budget_bytes: 400 }),
    ).toMatch(/data budget/);
  });
});
