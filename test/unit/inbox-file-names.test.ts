import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { numberedName, safeFileName } from "../../main/inbox/file-names.js";
import { removeStaleParts, saveAtomically } from "../../main/inbox/save-file.js";

/** Names a sender chose, made safe for this computer's disk, and saving that never overwrites. */

const dirs: string[] = [];
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), "gh-inbox-names-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("safe file names", () => {
  it.each([
    ["photo.jpg", "photo.jpg"],
    ["../../etc/passwd", "_.._etc_passwd"],
    ["a\\b:c*?.txt", "a_b_c__.txt"],
    [".bashrc", "bashrc"],
    ["CON.txt", "_CON.txt"],
    ["trailing. . ", "trailing"],
    ["evil\u202egnp.exe", "evil_gnp.exe"],
    ["", "file"],
    ["///", "file"],
  ])("%j becomes %j", (given, safe) => {
    expect(safeFileName(given)).toBe(safe);
  });

  it("keeps the extension of a name too long for a disk", () => {
    const name = safeFileName(`${"照".repeat(200)}.jpeg`);
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(200);
    expect(name.endsWith(".jpeg")).toBe(true);
  });

  it("numbers a taken name before its extension", () => {
    expect(numberedName("photo.jpg", 0)).toBe("photo.jpg");
    expect(numberedName("photo.jpg", 2)).toBe("photo (2).jpg");
    expect(numberedName("README", 1)).toBe("README (1)");
  });
});

describe("saving atomically", () => {
  it("gives two files of one name saved at once two names, and keeps what was there", async () => {
    const folder = temp();
    writeFileSync(join(folder, "photo.jpg"), "old");
    const a = Buffer.alloc(70_000, 1);
    const b = Buffer.alloc(50_000, 2);
    const paths = await Promise.all([
      saveAtomically(folder, "photo.jpg", Readable.from([a]), a.length),
      saveAtomically(folder, "photo.jpg", Readable.from([b]), b.length),
    ]);
    expect(new Set(paths).size).toBe(2);
    expect(readFileSync(join(folder, "photo.jpg"), "utf8")).toBe("old");
    expect(readdirSync(folder).sort()).toEqual(["photo (1).jpg", "photo (2).jpg", "photo.jpg"]);
    const saved = paths.map((p) => readFileSync(p));
    expect(saved.some((s) => s.equals(a)) && saved.some((s) => s.equals(b))).toBe(true);
  });

  it("keeps nothing when fewer bytes arrived than announced, and clears parts a crash left", async () => {
    const folder = temp();
    await expect(
      saveAtomically(folder, "cut.bin", Readable.from([Buffer.alloc(10)]), 20),
    ).rejects.toThrow(/10 of 20/);
    expect(readdirSync(folder)).toEqual([]);
    writeFileSync(join(folder, ".gatehouse-0123456789abcdef.part"), "x");
    expect(await removeStaleParts(folder)).toBe(1);
    expect(readdirSync(folder)).toEqual([]);
  });
});
