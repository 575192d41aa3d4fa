import { execFile, spawnSync } from "node:child_process";
import { promisify } from "node:util";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startParcel, type Harness } from "../helpers/parcel-harness.js";

/** The shell block of the README's curl section, exactly as a reader copies it. */
function readmeScript(): string {
  const readme = readFileSync("README.md", "utf8");
  const section = readme.slice(readme.indexOf("## Sending and picking up with curl"));
  const block = /```bash\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error("the README has no curl script");
  return block[1];
}

let h: Harness;
afterEach(async () => h?.close(true));

describe("the README's curl sequence", () => {
  it("sends a file and picks it up, and running it again neither fails nor overwrites", async () => {
    expect(spawnSync("jq", ["--version"]).status, "jq is needed (apt-get install jq)").toBe(0);
    h = await startParcel();
    const work = mkdtempSync(join(tmpdir(), "gh-readme-"));
    const bytes = randomBytes(200_000);
    writeFileSync(join(work, "report.pdf"), bytes);
    // The README talks to port 8000; the test service runs on a free port.
    const script = readmeScript().replaceAll("127.0.0.1:8000", `127.0.0.1:${h.port}`);
    writeFileSync(join(work, "script.sh"), script);
    const codes: string[] = [];
    for (let run = 0; run < 2; run++) {
      // Asynchronous: the service answering the script runs on this process's event loop.
      const { stdout: out } = await promisify(execFile)("bash", ["-e", "script.sh"], {
        cwd: work,
        encoding: "utf8",
      });
      codes.push(/^pickup code: (\S+)$/m.exec(out)?.[1] ?? "");
    }
    expect(codes.every((c) => /^[0-9A-Z]{3}-[0-9A-Z]{3}$/.test(c))).toBe(true);
    for (const code of codes) {
      const got = readFileSync(join(work, `pickup-${code}`, "report.pdf"));
      expect(got.equals(bytes)).toBe(true);
      // One download each: the parcel allows five.
      const r = await h.request("POST", "/pickup/resolve", { body: { code } });
      expect(r.json.downloads_left).toBe(4);
    }
    expect(readdirSync(work).filter((f) => f.startsWith("pickup-"))).toHaveLength(2);
  });
});
