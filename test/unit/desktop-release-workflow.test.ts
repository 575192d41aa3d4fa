import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

/**
 * The release workflow read as GitHub would run it: no installer can be built here, so this is
 * where a job that would not run, a test that would be skipped, or a smoke test whose failure
 * would not stop the release shows.
 */

interface Step {
  name?: string;
  run?: string;
  if?: string;
  uses?: string;
  shell?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
  "continue-on-error"?: boolean;
}
interface Job {
  "runs-on": string;
  needs?: string | string[];
  if?: string;
  permissions?: Record<string, string>;
  strategy?: { matrix: { include: Array<{ os: string; builder: string; platforms: string }> } };
  steps: Step[];
  "continue-on-error"?: boolean;
}

const text = readFileSync(".github/workflows/release.yml", "utf8");
const workflow = parse(text) as {
  on: { push: { tags: string[] }; workflow_dispatch: unknown };
  permissions: Record<string, string>;
  jobs: Record<string, Job>;
};
const builder = parse(readFileSync("electron-builder.yml", "utf8")) as Record<
  "linux" | "mac" | "win",
  { target: Array<{ target: string; arch: string[] }> }
>;
const { jobs } = workflow;
const runs = (job: Job): string => job.steps.map((s) => s.run ?? "").join("\n");
const needs = (job: Job): string[] => [job.needs ?? []].flat();

function packagedPlatforms(): string[] {
  const out = new Set<string>();
  for (const [os, config] of [
    ["linux", builder.linux],
    ["mac", builder.mac],
    ["win", builder.win],
  ] as const)
    for (const t of config.target) for (const arch of t.arch) out.add(`${os}-${arch}`);
  return [...out].sort();
}

describe("release workflow", () => {
  it("runs on version tags and by hand, reading only by default", () => {
    expect(workflow.on.push.tags).toEqual(["v*"]);
    expect(workflow.on).toHaveProperty("workflow_dispatch");
    expect(workflow.permissions).toEqual({ contents: "read" });
    // Nothing may fail quietly.
    expect(text).not.toMatch(/continue-on-error/);
  });

  it("pins the geodata once, with the workflow's token, before any core is fetched", () => {
    const pin = jobs["geodata-pin"];
    const step = pin.steps.find((s) => s.run?.includes("--pin-geodata"));
    expect(step?.env?.GITHUB_TOKEN).toBe("${{ github.token }}");
    expect(needs(jobs.build)).toEqual(["geodata-pin"]);
    const fetchAt = jobs.build.steps.findIndex((s) => s.run?.includes("scripts/fetch-core.ts"));
    const downloadAt = jobs.build.steps.findIndex((s) =>
      s.uses?.startsWith("actions/download-artifact"),
    );
    expect(downloadAt).toBeGreaterThanOrEqual(0);
    expect(downloadAt).toBeLessThan(fetchAt);
  });

  it("builds on Linux, Windows and macOS, fetching the core of every packaged platform", () => {
    const include = jobs.build.strategy?.matrix.include ?? [];
    expect(include.map((m) => m.os.split("-")[0]).sort()).toEqual(["macos", "ubuntu", "windows"]);
    const fetched = include
      .flatMap((m) => [...m.platforms.matchAll(/--platform (\S+)/g)].map((x) => x[1]))
      .sort();
    expect(fetched).toEqual(packagedPlatforms());
    expect(runs(jobs.build)).toContain("npx tsx scripts/fetch-core.ts ${{ matrix.platforms }}");
    expect(runs(jobs.build)).toContain("npm run dist -- ${{ matrix.builder }}");
  });

  it("runs the _electron tests on every platform, failing where Electron cannot start", () => {
    const names = jobs.build.steps.map((s) => s.name ?? "");
    const tests = jobs.build.steps.filter((s) => s.run?.includes("test/e2e/desktop.spec.ts"));
    expect(tests.map((s) => s.if).sort()).toEqual(["runner.os != 'Linux'", "runner.os == 'Linux'"]);
    for (const step of tests) {
      expect(step.env?.GATEHOUSE_REQUIRE_ELECTRON).toBe("1");
      expect(names.indexOf("Electron binary")).toBeLessThan(jobs.build.steps.indexOf(step));
      expect(jobs.build.steps.indexOf(step)).toBeLessThan(names.indexOf("Installers"));
    }
    // Linux has a display and a keyring only through these.
    const linux = tests.find((s) => s.if === "runner.os == 'Linux'");
    expect(linux?.run).toContain("dbus-run-session");
    expect(linux?.run).toContain("xvfb-run");
    // The spec itself turns the variable into a failure when no binary is there.
    expect(readFileSync("test/e2e/desktop.spec.ts", "utf8")).toContain(
      "process.env.GATEHOUSE_REQUIRE_ELECTRON",
    );
  });

  it("wires every signing and notarisation secret, each platform only its own certificate", () => {
    const installers = jobs.build.steps.find((s) => s.name === "Installers");
    const env = installers?.env ?? {};
    for (const name of [
      "CSC_LINK",
      "CSC_KEY_PASSWORD",
      "APPLE_ID",
      "APPLE_APP_SPECIFIC_PASSWORD",
      "APPLE_TEAM_ID",
      "WIN_CSC_LINK",
      "WIN_CSC_KEY_PASSWORD",
    ])
      expect(env[name], name).toContain(`secrets.${name}`);
    expect(env.CSC_LINK).toContain("runner.os == 'macOS'");
    // Without a certificate: ad hoc, no hardened runtime, no notarization, no keychain search.
    expect(installers?.run).toMatch(/unset "\$name"/);
    expect(installers?.run).toContain("-c.mac.identity=-");
    expect(installers?.run).toContain("CSC_IDENTITY_AUTO_DISCOVERY=false");
  });

  it("smoke-tests each installer on its own runner after the build", () => {
    const smoke: Record<string, { os: RegExp; must: string[] }> = {
      "smoke-deb": { os: /^ubuntu-/, must: ["scripts/smoke/deb-in-container.sh"] },
      "smoke-appimage": {
        os: /^ubuntu-24\.04$/,
        must: ["xvfb-run", "dbus-run-session", "scripts/smoke/app-window.ts", "--name appimage"],
      },
      "smoke-dmg": {
        os: /^macos-/,
        must: ["hdiutil attach", "scripts/smoke/app-window.ts", '--arch "$arch"'],
      },
      "smoke-nsis": { os: /^windows-/, must: ['"/S"', "scripts/smoke/app-window.ts"] },
    };
    for (const [name, { os, must }] of Object.entries(smoke)) {
      const job = jobs[name];
      expect(job, name).toBeDefined();
      expect(job["runs-on"], name).toMatch(os);
      expect(needs(job), name).toEqual(["build"]);
      for (const piece of must) expect(runs(job), `${name}: ${piece}`).toContain(piece);
    }
    for (const name of ["smoke-appimage", "smoke-dmg", "smoke-nsis"]) {
      const upload = jobs[name].steps.find((s) => s.uses?.startsWith("actions/upload-artifact"));
      expect(upload?.if, name).toBe("always()");
      expect(upload?.with?.path, name).toBe("shots/");
    }
    expect(readFileSync("scripts/smoke/deb-in-container.sh", "utf8")).toContain("debian:bookworm");
    for (const file of [
      "scripts/smoke/deb-in-container.sh",
      "scripts/smoke/deb-install-and-run.sh",
      "scripts/smoke/headless-health.sh",
      "scripts/smoke/app-window.ts",
    ])
      expect(existsSync(file), file).toBe(true);
  });

  it("releases only a tag whose every smoke test passed, and only there may it write", () => {
    const release = jobs.release;
    expect(needs(release).sort()).toEqual(
      ["smoke-appimage", "smoke-deb", "smoke-dmg", "smoke-nsis"].sort(),
    );
    expect(release.if).toBe("startsWith(github.ref, 'refs/tags/v')");
    expect(release.permissions).toEqual({ contents: "write" });
    for (const [name, job] of Object.entries(jobs))
      if (name !== "release") expect(job.permissions, name).toBeUndefined();
    expect(runs(release)).toContain("gh release create");
  });
});
