import { describe, expect, it } from "vitest";
import { HttpError } from "../../server/http/errors.js";
import {
  admissionProblem,
  fileNameProblem,
  parseManifest,
} from "../../server/parcel/domain/admission.js";
import { DEFAULT_POLICY, type Policy } from "../../server/parcel/domain/policy.js";

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
    if (err instanceof HttpError) return err.status;
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

describe("parseManifest", () => {
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
