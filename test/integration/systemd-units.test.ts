import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { headlessArgs, runHeadless } from "../../main/headless.js";
import { parseConfig, type GatehouseConfig } from "../../server/config.js";
import { CoreLocator } from "../../server/proxy/core/install-location.js";

/**
 * The headless units and the deb scripts that install them, read as systemd and the packager
 * will: the hardening each unit must have, and that every path in them is where the deb puts
 * the app and where the services keep their data.
 */

type Unit = Map<string, Map<string, string[]>>;

/** systemd's unit syntax, as far as these files use it: sections, `Key=value`, comments. */
function readUnit(file: string): Unit {
  const unit: Unit = new Map();
  let section: Map<string, string[]> | null = null;
  for (const raw of readFileSync(file, "utf8").split("\n")) {
    const line = raw.trim();
    if (!line || line.startsWith("#") || line.startsWith(";")) continue;
    const head = /^\[(.+)\]$/.exec(line);
    if (head) {
      section = new Map();
      unit.set(head[1], section);
      continue;
    }
    const eq = line.indexOf("=");
    if (!section || eq < 1) throw new Error(`${file}: not a unit line: ${line}`);
    const key = line.slice(0, eq);
    section.set(key, [...(section.get(key) ?? []), line.slice(eq + 1)]);
  }
  return unit;
}

const one = (unit: Unit, section: string, key: string): string => {
  const values = unit.get(section)?.get(key) ?? [];
  expect(values, `${section}.${key}`).toHaveLength(1);
  return values[0];
};
const words = (value: string): string[] => value.split(/\s+/).filter(Boolean);

const builder = parse(readFileSync("electron-builder.yml", "utf8")) as {
  productName: string;
  linux: {
    executableName: string;
    extraResources: Array<{ from: string; to: string; filter: string[] }>;
  };
  deb: { afterInstall: string; afterRemove: string };
};
// Where the deb package puts the app (electron-builder: /opt/<product name>/<executable>).
const APP_DIR = `/opt/${builder.productName}`;
const APP_EXE = `${APP_DIR}/${builder.linux.executableName}`;
const RESOURCES = `${APP_DIR}/resources`;

const service = readUnit("resources/linux/gatehouse.service");
const coreUnit = readUnit("resources/linux/gatehouse-mihomo.service");
const exec = words(one(service, "Service", "ExecStart"));
const services = headlessArgs(exec) ?? [];
const config = parseConfig(services, {}) as GatehouseConfig;
const STATE = `/var/lib/${one(service, "Service", "StateDirectory")}`;

describe.each([
  ["gatehouse.service", service],
  ["gatehouse-mihomo.service", coreUnit],
])("%s", (_name, unit) => {
  it("confines the process: no new privileges, read-only system, no homes, private /tmp", () => {
    expect(one(unit, "Service", "NoNewPrivileges")).toBe("yes");
    expect(one(unit, "Service", "ProtectSystem")).toBe("strict");
    expect(one(unit, "Service", "ProtectHome")).toBe("yes");
    expect(one(unit, "Service", "PrivateTmp")).toBe("yes");
    expect(one(unit, "Service", "StateDirectory")).toBe("gatehouse");
  });

  it("keeps only the capabilities TUN needs, as ambient and bounding set", () => {
    const tun = ["CAP_NET_ADMIN", "CAP_NET_BIND_SERVICE"];
    expect(words(one(unit, "Service", "AmbientCapabilities")).sort()).toEqual(tun);
    expect(words(one(unit, "Service", "CapabilityBoundingSet")).sort()).toEqual(tun);
  });

  it("runs as the dedicated gatehouse user, never root", () => {
    expect(one(unit, "Service", "User")).toBe("gatehouse");
    expect(one(unit, "Service", "Group")).toBe("gatehouse");
  });
});

describe("gatehouse.service", () => {
  it("starts the installed app where the deb puts it, headless, with Electron's switches first", () => {
    expect(exec[0]).toBe(APP_EXE);
    const at = exec.indexOf("--headless");
    expect(at).toBeGreaterThan(0);
    // No display and no GPU on a gateway: Chromium must not look for either.
    expect(exec.slice(1, at)).toEqual(
      expect.arrayContaining(["--ozone-platform=headless", "--disable-gpu"]),
    );
    for (const s of exec.slice(1, at)) expect(s).toMatch(/^--[a-z-]+(=[a-z]+)?$/);
  });

  it("passes the services a command line they accept, with their data in the state directory", () => {
    expect(config.dataDir).toBe(STATE);
    expect(config.coreService).toBe("process");
  });

  it("leaves the bundled core to the app, so an installed core is still preferred", () => {
    // The app names <resources>/core/mihomo itself (GATEHOUSE_BUNDLED_CORE, from
    // process.resourcesPath); --core-bin would always win over a core installed from the console.
    expect(services).not.toContain("--core-bin");
    const env = unit("Environment");
    expect(env.some((e) => e.startsWith("PATH=") && e.includes(`${RESOURCES}/core`))).toBe(false);
  });

  it("keeps Electron's own files out of the read-only system and the homes", () => {
    const env = unit("Environment");
    for (const name of ["HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"]) {
      const value = env.find((e) => e.startsWith(`${name}=`))?.slice(name.length + 1) ?? "";
      expect(value, name).toMatch(/^\/var\/(lib|cache)\/gatehouse(\/|$)/);
    }
    expect(one(service, "Service", "CacheDirectory")).toBe("gatehouse");
  });

  function unit(key: string): string[] {
    return service.get("Service")?.get(key) ?? [];
  }
});

describe("gatehouse-mihomo.service", () => {
  it("is the unit the services control by default under --core-service systemd", () => {
    const systemd = parseConfig([...services, "--core-service", "systemd"], {}) as GatehouseConfig;
    expect(systemd.coreUnit).toBe("gatehouse-mihomo.service");
  });

  it("runs the core launcher shipped with the app, on the data dir gatehouse.service uses", () => {
    expect(words(one(coreUnit, "Service", "ExecStart"))).toEqual([
      "/bin/sh",
      `${RESOURCES}/linux/run-core.sh`,
      config.dataDir,
    ]);
    const shipped = builder.linux.extraResources.find((r) => r.from === "resources/linux");
    expect(shipped?.to).toBe("linux");
    expect(shipped?.filter).toEqual(
      expect.arrayContaining(["*.service", "*.rules", "run-core.sh"]),
    );
  });
});

describe("run-core.sh", () => {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-run-core-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("runs the core Gatehouse installed, with the home and configuration the services write", () => {
    const locator = new CoreLocator({ dataDir: dir, platform: "linux" });
    mkdirSync(locator.dir, { recursive: true });
    // A stand-in core that prints what it was given.
    writeFileSync(locator.installedPath, '#!/bin/sh\nprintf "%s\\n" "$@"\n');
    chmodSync(locator.installedPath, 0o755);
    const out = execFileSync("/bin/sh", ["resources/linux/run-core.sh", dir], { encoding: "utf8" });
    // The service's core home is <data-dir>/proxy/core with config.yaml in it.
    const home = join(dir, "proxy", "core");
    expect(out.trim().split("\n")).toEqual(["-d", home, "-f", join(home, "config.yaml")]);
  });

  it("falls back to the core bundled in the install's resources", () => {
    const text = readFileSync("resources/linux/run-core.sh", "utf8");
    expect(text).toContain(`core=${RESOURCES}/core/mihomo`);
  });
});

describe("the deb's scripts", () => {
  const macros = { executable: builder.linux.executableName, sanitizedProductName: "Gatehouse" };
  /** What electron-builder makes of a script: `${name}` filled in, any other name refused. */
  const render = (file: string): string =>
    readFileSync(file, "utf8").replace(/\${([a-zA-Z]+)}/g, (_m, name: string) => {
      if (!(name in macros)) throw new Error(`${file}: electron-builder has no macro ${name}`);
      return macros[name as keyof typeof macros];
    });

  it("are the ones electron-builder.yml names, and are valid bash once filled in", () => {
    expect(builder.deb.afterInstall).toBe("resources/linux/after-install.sh");
    expect(builder.deb.afterRemove).toBe("resources/linux/after-remove.sh");
    for (const file of [builder.deb.afterInstall, builder.deb.afterRemove]) {
      const dir = mkdtempSync(join(tmpdir(), "gatehouse-deb-"));
      writeFileSync(join(dir, "script"), render(file));
      execFileSync("bash", ["-n", join(dir, "script")]);
      rmSync(dir, { recursive: true });
    }
  });

  it("install both units and reload systemd, never enabling or starting them", () => {
    const text = render(builder.deb.afterInstall);
    expect(text).toMatch(
      /install -m 0644 "\$units\/gatehouse\.service" "\$units\/gatehouse-mihomo\.service" \/lib\/systemd\/system\//,
    );
    // $app is the install dir checked below: the units are copied from its resources.
    expect(text).toContain('units="$app/resources/linux"');
    expect(text).toContain("systemctl daemon-reload");
    expect(text).not.toMatch(/systemctl\s+(enable|start|restart)/);
    expect(text).toMatch(/useradd --system .* gatehouse/s);
  });

  it("keep the packager's own work: the command on PATH and Chromium's sandbox helper", () => {
    const text = render(builder.deb.afterInstall);
    expect(text).toContain(`app='${APP_DIR}'`);
    expect(text).toContain('update-alternatives --install "/usr/bin/$exe" "$exe" "$launcher" 100');
    // The command on PATH is the launcher that adds the display-less switches for --headless.
    expect(text).toContain('launcher="$app/resources/linux/gatehouse-launcher.sh"');
    expect(render(builder.deb.afterRemove)).toContain(
      'update-alternatives --remove "$exe" "$app/resources/linux/gatehouse-launcher.sh"',
    );
    expect(text).toContain('"$app/chrome-sandbox"');
    expect(text).toContain("apparmor-profile");
  });
});

describe("gatehouse --headless", () => {
  it("takes everything after the flag as the services' options", () => {
    expect(headlessArgs(["/opt/Gatehouse/gatehouse", "--headless", "--proxy-only"])).toEqual([
      "--proxy-only",
    ]);
    expect(headlessArgs(["electron", ".", "--disable-gpu", "--headless"])).toEqual([]);
    expect(headlessArgs(["/opt/Gatehouse/gatehouse", "--proxy-only"])).toBeNull();
  });

  it("hands the command-line entry its arguments where it reads them, and only when asked", async () => {
    const argv = process.argv;
    let seen: string[] = [];
    try {
      const load = async () => {
        seen = process.argv.slice(2);
      };
      expect(await runHeadless(["gatehouse", "--no-sandbox"], load)).toBe(false);
      expect(seen).toEqual([]);
      expect(await runHeadless(["gatehouse", "--headless", "--data-dir", "/x"], load)).toBe(true);
      expect(seen).toEqual(["--data-dir", "/x"]);
    } finally {
      process.argv = argv;
    }
  });
});
