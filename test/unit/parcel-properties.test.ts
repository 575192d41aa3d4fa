import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DomainError } from "../../server/domain-errors.js";
import { HttpError } from "../../server/http/errors.js";
import { parsePageQuery, resolvePage } from "../../server/http/pagination.js";
import { fileNameProblem, nameKey, printableName } from "../../server/parcel/domain/admission.js";
import { parseManifest } from "../../server/parcel/http/manifest.js";
import { CODE_ALPHABET, formatCode, normalizeCode } from "../../server/parcel/domain/codes.js";
import { DEFAULT_POLICY } from "../../server/parcel/domain/policy.js";
import { parcelStatus } from "../helpers/error-status.js";

const RUNS = { numRuns: 300 };

/**
 * Runs `fn`; answers the coded error it threw (a domain error or, from parsing, an HttpError),
 * null when it returned, and rethrows anything else.
 */
function httpErrorOf(fn: () => unknown): HttpError | DomainError | null {
  try {
    fn();
    return null;
  } catch (err) {
    if (err instanceof HttpError || err instanceof DomainError) return err;
    throw err;
  }
}

const code = fc
  .integer({ min: 6, max: 16 })
  .chain((n) =>
    fc
      .array(fc.constantFrom(...CODE_ALPHABET), { minLength: n, maxLength: n })
      .map((chars) => chars.join("")),
  );

describe("pickup code normalisation", () => {
  it("reads back every displayed code", () => {
    fc.assert(
      fc.property(code, (c) => normalizeCode(formatCode(c)) === c),
      RUNS,
    );
  });

  it("ignores letter case, spaces and dashes anywhere, and reads I, L as 1 and O as 0", () => {
    const typed = code.chain((c) =>
      fc
        .array(
          fc.record({
            lower: fc.boolean(),
            look: fc.boolean(),
            before: fc.constantFrom("", " ", "-", "  ", "\t", "--"),
          }),
          { minLength: c.length, maxLength: c.length },
        )
        .map((how) => ({
          c,
          typed: [...c]
            .map((ch, i) => {
              let out: string = ch;
              if (how[i].look && ch === "1") out = i % 2 ? "I" : "L";
              if (how[i].look && ch === "0") out = "O";
              if (how[i].lower) out = out.toLowerCase();
              return how[i].before + out;
            })
            .join(""),
        })),
    );
    fc.assert(
      fc.property(typed, ({ c, typed: t }) => normalizeCode(t) === c),
      RUNS,
    );
  });

  it("answers null or a code of the alphabet for any input, and never throws", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 200 }), (input) => {
        const out = normalizeCode(input);
        if (out === null) return true;
        return (
          out.length >= 1 && out.length <= 64 && [...out].every((ch) => CODE_ALPHABET.includes(ch))
        );
      }),
      { numRuns: 1000 },
    );
  });
});

const FORMAT_CHARS = [
  "\u061c",
  ...Array.from({ length: 5 }, (_, i) => String.fromCharCode(0x200b + i)),
  ...Array.from({ length: 5 }, (_, i) => String.fromCharCode(0x202a + i)),
  ...Array.from({ length: 10 }, (_, i) => String.fromCharCode(0x2060 + i)),
  "\ufeff",
];
const safeName = fc
  .string({ unit: fc.constantFrom(..."abcXYZ019 _.()-éßΣ中文"), minLength: 1, maxLength: 40 })
  .filter((s) => s !== "." && s !== "..");

describe("file names", () => {
  it("refuses a name with an invisible or text-direction character anywhere", () => {
    const poisoned = fc
      .tuple(safeName, fc.constantFrom(...FORMAT_CHARS), fc.nat())
      .map(([name, ch, at]) => {
        const i = at % (name.length + 1);
        return name.slice(0, i) + ch + name.slice(i);
      });
    fc.assert(
      fc.property(poisoned, (name) => {
        expect(fileNameProblem(name)).toMatch(/invisible or text-direction/);
        // The message shows the character as a code point, so it cannot reorder the sentence.
        expect(printableName(name)).toMatch(/<U\+[0-9A-F]{4}>/);
        const err = httpErrorOf(() =>
          parseManifest(DEFAULT_POLICY, { files: [{ name, size: 1 }] }),
        );
        expect(err && parcelStatus(err)).toBe(400);
      }),
      RUNS,
    );
  });

  it("refuses two names of one manifest that differ only in letter case or Unicode form", () => {
    const twin = safeName.chain((name) =>
      fc
        .constantFrom<(s: string) => string>(
          (s) => s.toUpperCase(),
          (s) => s.toLowerCase(),
          (s) => s.normalize("NFD"),
          (s) => s.normalize("NFD").toUpperCase(),
        )
        .map((f) => [name, f(name)] as const),
    );
    fc.assert(
      fc.property(twin, ([a, b]) => {
        if (fileNameProblem(b) !== null) return; // e.g. upper-casing made it too long
        expect(nameKey(a)).toBe(nameKey(b));
        const err = httpErrorOf(() =>
          parseManifest(DEFAULT_POLICY, {
            files: [
              { name: a, size: 1 },
              { name: b, size: 2 },
            ],
          }),
        );
        expect(err && parcelStatus(err)).toBe(400);
      }),
      RUNS,
    );
  });

  it("accepts distinct safe names and keeps sizes and the total exact", () => {
    const files = fc.uniqueArray(
      fc.record({ name: safeName, size: fc.integer({ min: 0, max: 1_000_000 }) }),
      { minLength: 1, maxLength: 20, selector: (f) => nameKey(f.name) },
    );
    fc.assert(
      fc.property(files, (list) => {
        const m = parseManifest(DEFAULT_POLICY, { files: list });
        expect(m.files).toEqual(list);
        expect(m.totalBytes).toBe(list.reduce((a, f) => a + f.size, 0));
      }),
      RUNS,
    );
  });

  it("answers any JSON body with a manifest, 400 or 413, and nothing else", () => {
    const body = fc.oneof(
      fc.jsonValue(),
      fc.record({
        files: fc.array(
          fc.record({ name: fc.oneof(fc.string(), fc.jsonValue()), size: fc.jsonValue() }),
          { maxLength: 5 },
        ),
        days: fc.jsonValue(),
        downloads: fc.jsonValue(),
        password: fc.jsonValue(),
        renew: fc.jsonValue(),
      }),
    );
    fc.assert(
      fc.property(body, (b) => {
        const err = httpErrorOf(() => parseManifest(DEFAULT_POLICY, b));
        if (err) expect([400, 413]).toContain(parcelStatus(err));
      }),
      { numRuns: 1000 },
    );
  });
});

describe("pagination", () => {
  it("accepts exactly whole numbers in range and answers 400 for anything else", () => {
    const raw = fc.oneof(
      fc.integer({ min: -5, max: 200 }).map(String),
      fc.string({ maxLength: 20 }),
      fc.constantFrom("1.5", "1e2", " 2", "0x10", "", "+3", "99999999999999999999"),
    );
    fc.assert(
      fc.property(
        fc.option(raw, { nil: undefined }),
        fc.option(raw, { nil: undefined }),
        (page, size) => {
          const query: Record<string, unknown> = {};
          if (page !== undefined) query.page = page;
          if (size !== undefined) query.page_size = size;
          let parsed: { page: number; pageSize: number } | null = null;
          const err = httpErrorOf(() => (parsed = parsePageQuery(query, 20)));
          const isInt = (s: string | undefined, min: number, max: number) =>
            s === undefined || (/^-?\d{1,15}$/.test(s) && Number(s) >= min && Number(s) <= max);
          const valid = isInt(page, 1, Number.MAX_SAFE_INTEGER) && isInt(size, 1, 100);
          if (valid) {
            expect(err).toBeNull();
            expect(parsed).toEqual({
              page: page === undefined ? 1 : Number(page),
              pageSize: size === undefined ? 20 : Number(size),
            });
          } else {
            expect(err && parcelStatus(err)).toBe(400);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("covers every row exactly once, page by page, and clamps a page past the end", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2000 }),
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 1, max: 100 }),
        (total, pageSize, asked) => {
          const { page, pages, offset } = resolvePage(total, { page: asked, pageSize });
          expect(pages).toBe(Math.max(1, Math.ceil(total / pageSize)));
          expect(page).toBe(Math.min(asked, pages));
          expect(offset).toBe((page - 1) * pageSize);
          let seen = 0;
          for (let p = 1; p <= pages; p++) {
            const r = resolvePage(total, { page: p, pageSize });
            expect(r.offset).toBe(seen);
            seen += Math.min(pageSize, total - r.offset);
          }
          expect(seen).toBe(total);
        },
      ),
      RUNS,
    );
  });
});
