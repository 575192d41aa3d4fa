import { rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { FATAL_LINE, failingCore, TEST_FAILED_LINE } from "../helpers/failing-core.js";
import { startProxy, type ProxyHarness } from "./proxy-api-harness.js";
import { freePort } from "./proxy-core-harness.js";

/**
 * A core that fails to start is named by a code the console says in the reader's language;
 * the core's own words travel apart (`output`, or the status's `configError` under its code)
 * and never inside the list of recent problems.
 */
describe("a proxy core that fails to start", () => {
  let h: ProxyHarness | null = null;
  const dirs: string[] = [];
  afterEach(async () => {
    await h?.close();
    h = null;
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  async function serviceWith(options: { failTest?: boolean; autoStart?: boolean }) {
    const core = failingCore(options);
    dirs.push(core.dir);
    h = await startProxy({
      coreBin: core.bin,
      controllerPort: await freePort(),
      autoStartCore: options.autoStart ?? false,
    });
    await h.setup();
    return h;
  }

  it("answers core.exited_at_start with the core's last lines as output", async () => {
    const svc = await serviceWith({});
    const r = await svc.request("POST", "/system/service", { body: { action: "start" } });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe("core.exited_at_start");
    expect(r.json.params).toBeUndefined();
    expect(r.json.output).toContain(FATAL_LINE);
    // The English sentence keeps the core's words for clients that read only `error`.
    expect(r.json.error).toMatch(/^The proxy core stopped right after starting\n/);
    const status = (await svc.request("GET", "/status")).json;
    expect(status.configErrorCode).toBe("core.exited_at_start");
    expect(status.configError).toContain(FATAL_LINE);
  });

  it("names a failed configuration test core.config_rejected, in the status too", async () => {
    const svc = await serviceWith({ failTest: true });
    const r = await svc.request("POST", "/system/service", { body: { action: "start" } });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe("core.config_rejected");
    expect(r.json.params.detail).toContain(TEST_FAILED_LINE);
    const status = (await svc.request("GET", "/status")).json;
    expect(status.configErrorCode).toBe("core.config_rejected");
    expect(status.configError).toContain("payloadRule error");
  });

  it("records a failed start with the service as coded problems, without the core's words", async () => {
    const svc = await serviceWith({ autoStart: true });
    const status = (await svc.request("GET", "/status")).json;
    const problems = status.recentErrors as Array<{
      code: string;
      params: Record<string, unknown>;
      level: string;
      message: string;
    }>;
    const start = problems.find((p) => p.code === "core.did_not_start");
    expect(start).toMatchObject({
      level: "error",
      params: { reason_code: "core.exited_at_start" },
    });
    // The core's fatal line is a problem of its own, said by code; its words stay in `message`.
    expect(problems.map((p) => p.code)).toContain("core.log_error");
    for (const p of problems) {
      expect(p.code).toMatch(/^[a-z]+\.[a-z_]+$/);
      expect(JSON.stringify(p.params)).not.toContain("operation not permitted");
    }
    expect(status.configErrorCode).toBe("core.exited_at_start");
  });
});
