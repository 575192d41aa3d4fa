import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ManualClock } from "../../server/clock.js";
import { DomainError } from "../../server/domain-errors.js";
import { createCoreManager } from "../../server/proxy/core/index.js";
import { ProcessSupervisor } from "../../server/proxy/core/supervisor.js";
import { SystemdSupervisor } from "../../server/proxy/core/systemd.js";
import { DEFAULT_SETTINGS, type CoreInput, type RuleRecord } from "../../server/proxy/types.js";
import { proxyStatus } from "../helpers/error-status.js";

const A = "a".repeat(24);
let dir = "";
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gatehouse-mgr-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function input(rules: RuleRecord[] = []): CoreInput {
  return {
    settings: { ...DEFAULT_SETTINGS },
    subscriptions: [
      { id: A, name: "a", nodes: [{ name: "HK", type: "ss", server: "1.1.1.1", port: 1 }] },
    ],
    rules,
  };
}

const badRule: RuleRecord = {
  id: "r".repeat(24),
  type: "DOMAIN",
  value: "bad.example",
  action: "DIRECT",
  enabled: true,
};

/** A core whose `-t` fails on configs naming bad.example, like mihomo's test mode. */
function scriptCore(): string {
  const bin = join(dir, "core.sh");
  writeFileSync(
    bin,
    `#!/bin/sh
while [ $# -gt 0 ]; do case "$1" in -f) f="$2"; shift;; -t) t=1;; esac; shift; done
if [ -n "$t" ]; then
  if grep -q bad.example "$f"; then echo "level=error msg=\\"rule bad.example: invalid\\""; echo "configuration file $f test failed"; exit 1; fi
  echo "configuration file $f test is successful"; exit 0
fi
exit 2
`,
  );
  chmodSync(bin, 0o755);
  return bin;
}

function manager(coreBin?: string) {
  return createCoreManager({
    homeDir: join(dir, "core"),
    coreBin,
    service: "process",
    unit: "gatehouse-mihomo.service",
    controllerPort: 1,
    clock: new ManualClock(),
    log: () => undefined,
  });
}

describe("CoreManager.apply", () => {
  it("compiles and stages without an installed core, with a 0600 secret", async () => {
    const m = manager(undefined);
    expect(m.installed).toBe(false);
    await m.apply(input());
    const config = parse(readFileSync(join(dir, "core", "config.yaml"), "utf8")) as {
      secret: string;
      "proxy-providers": Record<string, { path: string }>;
    };
    const secret = readFileSync(join(dir, "core", "secret"), "utf8").trim();
    expect(config.secret).toBe(secret);
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(join(dir, "core", "secret")).mode & 0o777).toBe(0o600);
    const provider = parse(readFileSync(join(dir, "core", "providers", `${A}.yaml`), "utf8"));
    expect(provider).toEqual({ proxies: [{ name: "HK", type: "ss", server: "1.1.1.1", port: 1 }] });
    expect(m.configError).toBe("");
    expect(m.running()).toBe(false);
    // The same secret is kept across managers (the running core knows it).
    expect(readFileSync(join(dir, "core", "secret"), "utf8").trim()).toBe(secret);
    await m.close();
  });

  it("removes provider files of subscriptions that are gone", async () => {
    const m = manager(undefined);
    await m.apply(input());
    await m.apply({ ...input(), subscriptions: [] });
    expect(existsSync(join(dir, "core", "providers", `${A}.yaml`))).toBe(false);
  });

  it("checks with -t: a failure keeps the previous config, sets configError and throws 400", async () => {
    const m = manager(scriptCore());
    expect(m.installed).toBe(true);
    await m.apply(input());
    const before = readFileSync(join(dir, "core", "config.yaml"), "utf8");
    const err = await m.apply(input([badRule])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(proxyStatus(err as DomainError)).toBe(400);
    expect((err as DomainError).message).toMatch(/test failed/);
    expect(m.configError).toMatch(/bad\.example/);
    expect(readFileSync(join(dir, "core", "config.yaml"), "utf8")).toBe(before);
    expect(existsSync(join(dir, "core", "config.staged.yaml"))).toBe(false);
    await m.apply(input());
    expect(m.configError).toBe("");
  });

  it("applySelection with no running core does nothing and does not fail", async () => {
    const m = manager(undefined);
    await expect(m.applySelection(input())).resolves.toBeUndefined();
  });

  it("start answers 400 when no core is installed", async () => {
    const m = manager(join(dir, "missing-core"));
    expect(m.installed).toBe(false);
    const err = await m.start(input()).catch((e: unknown) => e);
    expect(proxyStatus(err as DomainError)).toBe(400);
    expect(m.running()).toBe(false);
  });
});

describe("SystemdSupervisor", () => {
  function fakeSystemctl(active: string): string {
    const bin = join(dir, "systemctl");
    const log = join(dir, "calls");
    writeFileSync(
      bin,
      `#!/bin/sh
echo "$@" >> "${log}"
case "$1" in
  is-active) echo "${active}"; [ "${active}" = active ] && exit 0; exit 3;;
  start|stop|restart) [ "$2" = "broken.service" ] && { echo "Job failed" >&2; exit 1; }; exit 0;;
esac
exit 1
`,
    );
    chmodSync(bin, 0o755);
    return bin;
  }
  const calls = () => readFileSync(join(dir, "calls"), "utf8").trim().split("\n");

  it("runs systemctl verbs on the fixed unit", async () => {
    const s = new SystemdSupervisor({
      unit: "gatehouse-mihomo.service",
      systemctl: fakeSystemctl("inactive"),
    });
    await s.start();
    await s.restart();
    await s.stop();
    expect(await s.active()).toBe(false);
    expect(calls()).toEqual([
      "start gatehouse-mihomo.service",
      "restart gatehouse-mihomo.service",
      "stop gatehouse-mihomo.service",
      "is-active gatehouse-mihomo.service",
    ]);
    const up = new SystemdSupervisor({
      unit: "gatehouse-mihomo.service",
      systemctl: fakeSystemctl("active"),
    });
    expect(await up.active()).toBe(true);
  });

  it("reports a failing verb as an error, and refuses odd unit names", async () => {
    const s = new SystemdSupervisor({ unit: "broken.service", systemctl: fakeSystemctl("failed") });
    await expect(s.start()).rejects.toThrow(/Job failed/);
    expect(() => new SystemdSupervisor({ unit: "x; rm -rf /" })).toThrow(/Invalid/);
    const missing = new SystemdSupervisor({ unit: "a.service", systemctl: join(dir, "nope") });
    await expect(missing.active()).rejects.toThrow(/failed/);
  });
});

describe("ProcessSupervisor backoff", () => {
  it("restarts a dying core with doubling delays, capped, reset after a stable run", async () => {
    // The core runs until the test kills it, so each exit happens at a known moment.
    const bin = join(dir, "dies.sh");
    writeFileSync(bin, "#!/bin/sh\necho started\nexec sleep 30\n");
    chmodSync(bin, 0o755);
    const clock = new ManualClock();
    const delays: number[] = [];
    const sup = new ProcessSupervisor({
      bin,
      homeDir: dir,
      configFile: join(dir, "config.yaml"),
      clock,
      log: () => undefined,
      backoffBaseMs: 20,
      backoffMaxMs: 80,
      onRestarted: async () => {
        delays.push(sup.lastDelayMs);
      },
    });
    await sup.start();
    const killAndWait = async () => {
      const n = delays.length;
      const started = Date.now();
      process.kill(sup.pid as number, "SIGKILL");
      await waitUntil(() => delays.length > n);
      return Date.now() - started;
    };
    const waited: number[] = [];
    for (let i = 0; i < 4; i++) waited.push(await killAndWait());
    expect(delays).toEqual([20, 40, 80, 80]);
    // setTimeout never fires early: each restart came at least its delay later.
    expect(waited[2]).toBeGreaterThanOrEqual(79);
    // A run that lasted a stable minute (by the clock) starts the backoff over.
    clock.advance(60_000);
    await killAndWait();
    expect(delays[4]).toBe(20);
    await sup.stop();
    expect(await sup.active()).toBe(false);
    // Asserting an absence: a restart still pending would come within the longest backoff
    // (80 ms), so 100 ms without one shows stop cancelled it.
    await new Promise((r) => setTimeout(r, 100));
    expect(sup.restarts).toBe(5);
    expect(sup.recentOutput()).toContain("started");
  });
});

async function waitUntil(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 5));
  }
}
