import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ensurePrivateDir,
  privateDatabaseFile,
  tightenEntries,
  tightenPath,
  tightenTree,
  tightenTreeSync,
  writePrivateFile,
} from "../../server/private-files.js";

const mode = (p: string) => statSync(p).mode & 0o777;

let root = "";
let umask = 0;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "gh-private-"));
  // A permissive umask, so nothing below passes only because the umask hid the bits.
  umask = process.umask(0o002);
});
afterEach(() => {
  process.umask(umask);
  rmSync(root, { recursive: true, force: true });
});

function looseFile(path: string, m = 0o664): string {
  writeFileSync(path, "x");
  chmodSync(path, m);
  return path;
}

function looseDir(path: string, m = 0o775): string {
  mkdirSync(path, { recursive: true });
  chmodSync(path, m);
  return path;
}

describe.skipIf(process.platform === "win32")("private files", () => {
  it("creates a directory 0700 and tightens an existing 0755 one", () => {
    expect(mode(ensurePrivateDir(join(root, "a", "b")))).toBe(0o700);
    const old = looseDir(join(root, "old"), 0o755);
    ensurePrivateDir(old);
    expect(mode(old)).toBe(0o700);
  });

  it("writes files 0600 whatever the umask, and re-tightens a file it rewrites", () => {
    const f = join(root, "f");
    writePrivateFile(f, "one");
    expect(mode(f)).toBe(0o600);
    chmodSync(f, 0o666);
    writePrivateFile(f, "two");
    expect(mode(f)).toBe(0o600);
  });

  it("drops group and other bits but keeps the owner's, and leaves symbolic links alone", () => {
    const data = looseFile(join(root, "data"), 0o644);
    const tool = looseFile(join(root, "tool"), 0o755);
    const outside = looseFile(join(root, "outside"), 0o644);
    const link = join(root, "link");
    symlinkSync(outside, link);
    expect(tightenPath(data)).toBe(true);
    expect(tightenPath(tool)).toBe(true);
    expect(tightenPath(link)).toBe(false);
    expect(tightenPath(data)).toBe(false);
    expect(tightenPath(join(root, "missing"))).toBe(false);
    expect([mode(data), mode(tool), mode(outside)]).toEqual([0o600, 0o700, 0o644]);
  });

  it("creates a database file 0600 and tightens the journal files an earlier run left", () => {
    const db = join(root, "x.db");
    privateDatabaseFile(db);
    expect(mode(db)).toBe(0o600);
    expect(statSync(db).size).toBe(0);
    chmodSync(db, 0o644);
    looseFile(`${db}-wal`, 0o644);
    looseFile(`${db}-shm`, 0o644);
    privateDatabaseFile(db);
    expect([mode(db), mode(`${db}-wal`), mode(`${db}-shm`)]).toEqual([0o600, 0o600, 0o600]);
  });

  it("tightens a directory's own entries without descending", () => {
    const dir = looseDir(join(root, "d"));
    looseFile(join(dir, "f"));
    const sub = looseDir(join(dir, "sub"));
    const deep = looseFile(join(sub, "deep"));
    expect(tightenEntries(dir)).toBe(2);
    expect([mode(dir), mode(join(dir, "f")), mode(sub), mode(deep)]).toEqual([
      0o700, 0o600, 0o700, 0o664,
    ]);
  });

  it("tightens a whole tree, synchronously or in the background", async () => {
    for (const run of [(d: string) => tightenTreeSync(d), (d: string) => tightenTree(d, 3)]) {
      const dir = looseDir(join(root, `t${Math.random()}`));
      const paths = [dir];
      for (let i = 0; i < 5; i++) {
        const sub = looseDir(join(dir, `s${i}`));
        paths.push(sub, looseDir(join(sub, "inner")));
        for (let j = 0; j < 7; j++) paths.push(looseFile(join(sub, "inner", `f${j}`)));
      }
      await run(dir);
      for (const p of paths) expect(mode(p)).toBe(statSync(p).isDirectory() ? 0o700 : 0o600);
    }
  });

  it("counts what the background pass changed and skips what is already private", async () => {
    const dir = ensurePrivateDir(join(root, "blobs"));
    const sub = looseDir(join(dir, "ab"));
    looseFile(join(sub, "one"));
    writePrivateFile(join(sub, "two"), "y");
    expect(await tightenTree(dir)).toEqual({ checked: 3, changed: 2, failed: 0 });
    expect(await tightenTree(dir)).toEqual({ checked: 3, changed: 0, failed: 0 });
  });
});
