import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfig, resolveCoreFallback } from "../../server/config.js";
import { CoreLocator } from "../../server/proxy/core/install-location.js";

const dirs: string[] = [];
function scratch(): string {
  const d = mkdtempSync(join(tmpdir(), "gh-locate-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function executable(path: string): string {
  writeFileSync(path, "#!/bin/sh\n");
  chmodSync(path, 0o755);
  return path;
}

describe("which core runs", () => {
  it("prefers --core-bin, then the installed core, then the bundled or PATH one", () => {
    const data = scratch();
    const other = scratch();
    const onPath = executable(join(other, "mihomo"));
    const fallback = { path: onPath, source: "path" as const };
    const none = new CoreLocator({ dataDir: data });
    expect(none.current()).toBeNull();
    const located = new CoreLocator({ dataDir: data, fallback });
    expect(located.current()).toEqual(fallback);
    mkdirSync(join(data, "core"));
    executable(join(data, "core", "mihomo"));
    expect(located.current()).toEqual({ path: join(data, "core", "mihomo"), source: "installed" });
    expect(located.hasPrevious()).toBe(false);
    const configured = new CoreLocator({ dataDir: data, configured: "/opt/mihomo", fallback });
    expect(configured.current()).toEqual({ path: "/opt/mihomo", source: "configured" });
    expect(configured.configured).toBe(true);
    // Windows names the installed executable mihomo.exe.
    expect(new CoreLocator({ dataDir: data, platform: "win32" }).installedPath).toBe(
      join(data, "core", "mihomo.exe"),
    );
  });

  it("takes the desktop app's own core, named in GATEHOUSE_BUNDLED_CORE, before PATH", () => {
    const shipped = executable(join(scratch(), "mihomo"));
    const bin = scratch();
    executable(join(bin, "mihomo"));
    expect(resolveCoreFallback({ GATEHOUSE_BUNDLED_CORE: shipped, PATH: bin })).toEqual({
      path: shipped,
      source: "bundled",
    });
    // A relative or missing path is not trusted.
    expect(resolveCoreFallback({ GATEHOUSE_BUNDLED_CORE: "mihomo", PATH: bin })?.source).toBe(
      "path",
    );
    expect(
      resolveCoreFallback({ GATEHOUSE_BUNDLED_CORE: join(bin, "nope"), PATH: bin })?.source,
    ).toBe("path");
  });

  it("finds mihomo on PATH as the fallback, and keeps --core-bin apart from it", () => {
    const bin = scratch();
    executable(join(bin, "mihomo"));
    const env = { PATH: bin, HOME: "/home/u" };
    expect(resolveCoreFallback(env)).toEqual({ path: join(bin, "mihomo"), source: "path" });
    expect(resolveCoreFallback({ PATH: "" })).toBeUndefined();
    const config = parseConfig(["--data-dir", "/tmp/gh"], env);
    expect(config).toMatchObject({
      coreBin: undefined,
      coreFallback: { path: join(bin, "mihomo"), source: "path" },
    });
    const named = parseConfig(["--data-dir", "/tmp/gh", "--core-bin", "/opt/mihomo"], env);
    expect(named).toMatchObject({ coreBin: "/opt/mihomo" });
  });
});
