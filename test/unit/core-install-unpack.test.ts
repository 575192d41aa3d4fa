import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { DomainError } from "../../server/domain-errors.js";
import { assetNames, releasePlatform } from "../../server/proxy/core/install-location.js";
import { gunzipTo, unzipTo } from "../../server/proxy/core/install-unpack.js";
import { zipOf as zip } from "../fixtures/core-release-server.js";
import { proxyStatus } from "../helpers/error-status.js";

const dirs: string[] = [];
function scratch(): string {
  const d = mkdtempSync(join(tmpdir(), "gh-unpack-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const EXE = Buffer.concat([Buffer.from("MZ"), Buffer.alloc(70_000, 7), Buffer.from("core")]);

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return err instanceof DomainError ? `${proxyStatus(err)} ${err.code}` : String(err);
  }
  return "no error";
}

describe("unzipTo (Windows assets)", () => {
  it.each([0, 8] as const)(
    "writes the one .exe entry (method %i) byte for byte",
    async (method) => {
      const d = scratch();
      const archive = join(d, "a.zip");
      writeFileSync(
        archive,
        zip([
          { name: "README.md", data: Buffer.from("read me"), method: 8 },
          { name: "mihomo-windows-amd64.exe", data: EXE, method },
        ]),
      );
      await unzipTo(archive, join(d, "out.exe"));
      expect(readFileSync(join(d, "out.exe")).equals(EXE)).toBe(true);
    },
  );

  it("refuses an entry whose CRC-32 does not match, no .exe, two .exe, or not a zip", async () => {
    const d = scratch();
    const cases: Array<Buffer> = [
      zip([{ name: "mihomo.exe", data: EXE, method: 8, badCrc: true }]),
      zip([{ name: "mihomo", data: EXE, method: 8 }]),
      zip([
        { name: "a.exe", data: EXE, method: 8 },
        { name: "b.exe", data: EXE, method: 0 },
      ]),
      Buffer.from("not a zip at all"),
    ];
    for (const [i, bytes] of cases.entries()) {
      writeFileSync(join(d, `${i}.zip`), bytes);
      expect(await code(unzipTo(join(d, `${i}.zip`), join(d, `${i}.exe`)))).toBe(
        "400 install.unreadable",
      );
    }
  });

  it("stops an entry that unpacks past the limit", async () => {
    const d = scratch();
    writeFileSync(join(d, "a.zip"), zip([{ name: "m.exe", data: EXE, method: 8 }]));
    expect(await code(unzipTo(join(d, "a.zip"), join(d, "m.exe"), 1000))).toBe(
      "400 install.unreadable",
    );
  });
});

describe("gunzipTo", () => {
  it("unpacks a gzip file and refuses a cut one or a bomb past the limit", async () => {
    const d = scratch();
    const gz = gzipSync(EXE);
    writeFileSync(join(d, "ok.gz"), gz);
    await gunzipTo(join(d, "ok.gz"), join(d, "ok"));
    expect(readFileSync(join(d, "ok")).equals(EXE)).toBe(true);
    writeFileSync(join(d, "cut.gz"), gz.subarray(0, gz.length - 20));
    expect(await code(gunzipTo(join(d, "cut.gz"), join(d, "cut")))).toBe("400 install.unreadable");
    writeFileSync(join(d, "bomb.gz"), gzipSync(Buffer.alloc(2_000_000)));
    expect(await code(gunzipTo(join(d, "bomb.gz"), join(d, "bomb"), 100_000))).toBe(
      "400 install.unreadable",
    );
  });
});

describe("the asset for this machine", () => {
  it("is named by mihomo's words for the OS and CPU, the amd64 compatible build first", () => {
    expect(assetNames("v1.19.30", "linux", "arm64")).toEqual(["mihomo-linux-arm64-v1.19.30.gz"]);
    expect(assetNames("v1.19.30", "linux", "arm")).toEqual(["mihomo-linux-armv7-v1.19.30.gz"]);
    expect(assetNames("v1.19.30", "freebsd", "ia32")).toEqual(["mihomo-freebsd-386-v1.19.30.gz"]);
    expect(assetNames("v1.19.30", "linux", "riscv64")).toEqual([
      "mihomo-linux-riscv64-v1.19.30.gz",
    ]);
    expect(assetNames("v1.19.30", "darwin", "x64")).toEqual([
      "mihomo-darwin-amd64-compatible-v1.19.30.gz",
      "mihomo-darwin-amd64-v1.19.30.gz",
    ]);
    expect(assetNames("v1.19.30", "win32", "x64").at(-1)).toBe("mihomo-windows-amd64-v1.19.30.zip");
    expect(releasePlatform("aix", "ppc64")).toBeNull();
    expect(assetNames("v1", "linux", "s390x")).toEqual([]);
  });
});
