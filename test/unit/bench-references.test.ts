import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { diskLimit } from "../../bench/disk-limit.js";
import { nginxConfig } from "../../bench/nginx.js";

const dir = mkdtempSync(join(tmpdir(), "gatehouse-bench-refs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("bench disk limit", () => {
  it("hashes every byte it copies, in pieces not a multiple of its chunk, and removes its copy", async () => {
    const data = randomBytes(3 * 1048576 + 12345);
    const source = join(dir, "source.bin");
    writeFileSync(source, data);
    const target = join(dir, "copy.bin");
    const r = await diskLimit(source, target);
    expect(r.sha256).toBe(createHash("sha256").update(data).digest("hex"));
    expect(r.ms).toBeGreaterThan(0);
    expect(existsSync(target)).toBe(false);
  });
});

describe("bench nginx configuration", () => {
  it("serves the directory with sendfile on the loopback port, every path inside its prefix", () => {
    const conf = nginxConfig("/tmp/prefix", "/tmp/www", 41234);
    expect(conf).toMatch(/^\s*sendfile on;/m);
    expect(conf).toMatch(/^\s*daemon off;/m);
    expect(conf).toContain("listen 127.0.0.1:41234;");
    expect(conf).toContain("root /tmp/www;");
    for (const m of conf.matchAll(/^\s*(?:pid|error_log|client_body_temp_path) (\S+)/gm))
      expect(m[1].startsWith("/tmp/prefix/"), m[0]).toBe(true);
  });
});
