import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PROBATION_FILE } from "../../server/proxy/domain/probation.js";
import type { ProxyRouterDeps } from "../../server/proxy/routes/router-deps.js";
import type { CoreInput, Settings } from "../../server/proxy/types.js";
import { FakeCore, startProxy, type ProxyHarness } from "./proxy-api-harness.js";

/**
 * A confirmation that meets the deadline: whichever comes first wins, the other finds nothing
 * to do, and the settings, the rollback point on disk and `GET /status` all tell the same
 * outcome at every moment, including while the core restarts on the state put back.
 */

const harnesses: ProxyHarness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
});

/** Something a test opens when it wants the held step to go on. */
function gate(): { wait: Promise<void>; open(): void; entered: boolean } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open, entered: false };
}

/** A running stand-in core whose applies and restarts a test can hold. */
class HeldCore extends FakeCore {
  holdApply: ReturnType<typeof gate> | null = null;
  holdRestart: ReturnType<typeof gate> | null = null;
  restarts = 0;
  override async apply(input: CoreInput): Promise<void> {
    const held = this.holdApply;
    if (held) {
      held.entered = true;
      await held.wait;
    }
    await super.apply(input);
  }
  override async restart(input: CoreInput): Promise<void> {
    this.restarts++;
    const held = this.holdRestart;
    if (held) {
      held.entered = true;
      await held.wait;
    }
    await super.restart(input);
  }
}

async function service() {
  const core = new HeldCore();
  core.isRunning = true;
  const h = await startProxy({ core, probationCheckMs: 0 });
  harnesses.push(h);
  await h.setup();
  const settings = (await h.request("GET", "/settings")).json as Settings;
  const r = await h.request("PUT", "/settings", { body: { ...settings, proxyEnabled: false } });
  expect(r.status, r.text).toBe(200);
  expect(r.headers["x-gatehouse-probation"]).toBeDefined();
  return { h, core };
}

async function until(check: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

const file = (h: ProxyHarness) => join(h.dataDir, "proxy", PROBATION_FILE);

/** The queue's turns as they are taken: a confirmation's, or a change's (the deadline's). */
function watchQueue(h: ProxyHarness): string[] {
  const changes = (h.service.ctx as ProxyRouterDeps).changes;
  const turns: string[] = [];
  const serial = changes.serial.bind(changes);
  const change = changes.change.bind(changes);
  changes.serial = (task) => (turns.push("serial"), serial(task));
  changes.change = (mutate, after, options) => (
    turns.push("change"),
    change(mutate, after, options)
  );
  return turns;
}

/** Everything the service says and keeps, for one of the two outcomes. */
async function expectOutcome(h: ProxyHarness, kept: boolean): Promise<void> {
  const settings = (await h.request("GET", "/settings")).json as Settings;
  expect(settings.proxyEnabled).toBe(!kept);
  const status = (await h.request("GET", "/status")).json;
  expect(status.probation).toBeNull();
  expect(status.configErrorCode).toBe(kept ? "" : "probation.rolled_back");
  expect(existsSync(file(h))).toBe(false);
  const banner = (await h.request("GET", "/system/probation")).json;
  expect(banner.probation).toBeNull();
  expect(banner.notice?.code ?? null).toBe(kept ? null : "probation.rolled_back");
}

describe("confirming at the deadline", () => {
  it("a confirmation after the deadline's undo began is refused, and /status already says rolled back", async () => {
    const { h, core } = await service();
    core.holdRestart = gate();
    h.clock.advance(60_000);
    const tick = h.service.probation.tick();
    // The undo is committed; the core restarts on the earlier state (held here).
    await until(() => core.holdRestart?.entered === true, "the core restarts");
    const confirm = await h.request("POST", "/system/confirm", { body: {} });
    expect(confirm.status).toBe(409);
    expect(confirm.json.code).toBe("probation.none");
    await expectOutcome(h, false);
    core.holdRestart.open();
    await tick;
    await expectOutcome(h, false);
    expect(core.restarts).toBe(1);
  });

  it("a confirmation queued before the deadline's undo wins, and the undo finds nothing", async () => {
    const { h, core } = await service();
    const turns = watchQueue(h);
    // A rule's apply holds the queue, so both wait for their turn in the order they came.
    core.holdApply = gate();
    const rule = h.request("POST", "/rules", {
      body: { type: "DOMAIN", value: "held.example", action: "DIRECT" },
    });
    await until(() => core.holdApply?.entered === true, "the rule's apply runs");
    const confirm = h.request("POST", "/system/confirm", { body: {} });
    await until(() => turns.includes("serial"), "the confirmation waits for its turn");
    h.clock.advance(60_000);
    const tick = h.service.probation.tick();
    core.holdApply.open();
    core.holdApply = null;
    expect((await confirm).status).toBe(200);
    await tick;
    expect((await rule).status).toBe(200);
    await expectOutcome(h, true);
    expect(core.restarts).toBe(0);
  });

  it("a deadline queued before the confirmation wins, and the confirmation is refused", async () => {
    const { h, core } = await service();
    const turns = watchQueue(h);
    core.holdApply = gate();
    const rule = h.request("POST", "/rules", {
      body: { type: "DOMAIN", value: "held.example", action: "DIRECT" },
    });
    await until(() => core.holdApply?.entered === true, "the rule's apply runs");
    h.clock.advance(60_000);
    const tick = h.service.probation.tick();
    await until(() => turns.filter((t) => t === "change").length === 2, "the undo is queued");
    const confirm = h.request("POST", "/system/confirm", { body: {} });
    await until(() => turns.includes("serial"), "the confirmation waits for its turn");
    core.holdApply.open();
    core.holdApply = null;
    await tick;
    const answer = await confirm;
    expect(answer.status).toBe(409);
    expect(answer.json.code).toBe("probation.none");
    expect((await rule).status).toBe(200);
    await expectOutcome(h, false);
    // The rule added while the change waited is not part of it.
    const rules = (await h.request("GET", "/rules")).json.custom as Array<{ value: string }>;
    expect(rules.map((r) => r.value)).toEqual(["held.example"]);
  });

  it("has one outcome however a confirmation and the deadline meet (30 rounds)", async () => {
    const { h } = await service();
    for (let round = 0; round < 30; round++) {
      if (round > 0) {
        const settings = (await h.request("GET", "/settings")).json as Settings;
        const r = await h.request("PUT", "/settings", {
          body: { ...settings, proxyEnabled: !settings.proxyEnabled },
        });
        expect(r.headers["x-gatehouse-probation"]).toBeDefined();
      }
      const before = (await h.request("GET", "/settings")).json as Settings;
      h.clock.advance(60_000);
      const delay = round % 3;
      const [confirm] = await Promise.all([
        h.request("POST", "/system/confirm", { body: {} }),
        new Promise((r) => setTimeout(r, delay)).then(() => h.service.probation.tick()),
      ]);
      const kept = confirm.status === 200;
      if (!kept) expect(confirm.status).toBe(409);
      const after = (await h.request("GET", "/settings")).json as Settings;
      expect(after.proxyEnabled).toBe(kept ? before.proxyEnabled : !before.proxyEnabled);
      const status = (await h.request("GET", "/status")).json;
      expect(status.probation).toBeNull();
      expect(status.configErrorCode).toBe(kept ? "" : "probation.rolled_back");
      expect(existsSync(file(h))).toBe(false);
    }
  });
});
