import { describe, expect, it } from "vitest";
import { DESKTOP_DEFAULTS, type DesktopSettings } from "../../main/settings/schema.js";
import { restartNeeded, validateSettingsPatch } from "../../main/settings/validate.js";
import { DESKTOP_STRINGS } from "../../main/i18n.js";

const base = DESKTOP_DEFAULTS;

function errorsOf(patch: unknown, current: DesktopSettings = base, lang: "en" | "zh-CN" = "en") {
  const result = validateSettingsPatch(patch, current, lang);
  if (result.ok) throw new Error("expected the patch to be refused");
  return result.errors;
}

describe("validateSettingsPatch", () => {
  it("accepts a good patch and lists what really changed", () => {
    const result = validateSettingsPatch(
      { parcelPort: 8100, language: "system", entries: ["192.168.1.20", "10.0.0.5"] },
      base,
    );
    expect(result).toEqual({
      ok: true,
      settings: { ...base, parcelPort: 8100, entries: ["192.168.1.20", "10.0.0.5"] },
      changed: ["parcelPort", "entries"],
    });
  });

  it.each([
    [{ parcelPort: 0 }, "parcelPort", "port_range"],
    [{ proxyPort: 65536 }, "proxyPort", "port_range"],
    [{ parcelHttpsPort: 8443.5 }, "parcelHttpsPort", "port_range"],
    [{ parcelPort: "8000" }, "parcelPort", "port_range"],
    [{ host: "gateway.lan" }, "host", "host_ip"],
    [{ host: "192.168.1.300" }, "host", "host_ip"],
    [{ entries: ["fe80::1"] }, "entries", "entries"],
    [{ entries: ["eth0\n"] }, "entries", "entries"],
    [{ entries: [""] }, "entries", "entries"],
    [{ entries: ["192.168.1.2", "192.168.1.2"] }, "entries", "entries"],
    [{ entries: "some" }, "entries", "entries"],
    [{ coreBinary: "bin/mihomo" }, "coreBinary", "path_absolute"],
    [{ coreServiceMode: "docker" }, "coreServiceMode", "choice"],
    [{ coreUnit: "mihomo" }, "coreUnit", "unit_name"],
    [{ startAtLogin: "yes" }, "startAtLogin", "boolean"],
    [{ lanName: "off" }, "lanName", "boolean"],
    [{ window: { width: 800, height: 600, maximized: false } }, "window", "unknown"],
    [{ adminPassword: "x" }, "adminPassword", "unknown"],
  ])("refuses %j naming the field", (patch, field, code) => {
    expect(errorsOf(patch)).toEqual([expect.objectContaining({ field, code })]);
  });

  it("refuses what is not an object", () => {
    for (const patch of [null, 42, "parcelPort=1", [1]])
      expect(errorsOf(patch)).toEqual([expect.objectContaining({ field: "", code: "not_object" })]);
  });

  it("accepts interface names and IPv4 addresses as chosen entries", () => {
    expect(validateSettingsPatch({ entries: ["eth0", "Wi-Fi 2", "10.0.0.5"] }, base)).toMatchObject(
      {
        ok: true,
        changed: ["entries"],
      },
    );
    expect(validateSettingsPatch({ entries: [] }, base).ok).toBe(true);
    expect(errorsOf({ entries: Array.from({ length: 17 }, (_, i) => `eth${i}`) })).toEqual([
      expect.objectContaining({ field: "entries", code: "entries" }),
    ]);
  });

  it("accepts IPv6 literals for the listen address and an absolute core path", () => {
    expect(validateSettingsPatch({ host: "::" }, base).ok).toBe(true);
    expect(validateSettingsPatch({ coreBinary: "/opt/mihomo/mihomo" }, base).ok).toBe(true);
    expect(validateSettingsPatch({ coreBinary: null }, base).ok).toBe(true);
  });

  it("refuses two services on one port, naming the field that was changed", () => {
    expect(errorsOf({ proxyPort: 8000 })).toEqual([
      {
        field: "proxyPort",
        code: "port_clash",
        message: "Proxy console port is the same as Parcel port; choose another port.",
      },
    ]);
    expect(errorsOf({ parcelPort: 8080 })).toEqual([
      expect.objectContaining({ field: "parcelPort", code: "port_clash" }),
    ]);
  });

  it("checks the HTTPS port only while HTTPS is on", () => {
    expect(validateSettingsPatch({ parcelHttpsPort: 8080 }, base).ok).toBe(true);
    expect(errorsOf({ httpsEnabled: true, parcelHttpsPort: 8080 })).toEqual([
      expect.objectContaining({ field: "parcelHttpsPort", code: "port_clash" }),
    ]);
    const clashing = { ...base, parcelHttpsPort: 8000 };
    expect(errorsOf({ httpsEnabled: true }, clashing)).toEqual([
      expect.objectContaining({ code: "port_clash" }),
    ]);
  });

  it("keeps the proxy core's controller port free", () => {
    expect(errorsOf({ parcelPort: 9090 })).toEqual([
      expect.objectContaining({ field: "parcelPort", code: "port_core" }),
    ]);
  });

  it("says the error in the operator's language", () => {
    const [error] = errorsOf({ parcelPort: 0 }, base, "zh-CN");
    expect(error.message).toBe("包裹服务端口必须是 1 到 65535 之间的整数。");
    expect(error.message).toContain(DESKTOP_STRINGS["zh-CN"]["settings.field.parcelPort"]);
  });
});

describe("restartNeeded", () => {
  const after = (patch: Partial<DesktopSettings>): DesktopSettings => ({ ...base, ...patch });

  it("restarts for ports, host, HTTPS, entries and the core, and applies the rest live", () => {
    for (const patch of [
      { parcelPort: 8100 },
      { proxyPort: 8181 },
      { host: "127.0.0.1" },
      { httpsEnabled: true },
      { entries: ["192.168.1.20"] },
      { coreBinary: "/usr/bin/mihomo" },
      { coreServiceMode: "systemd" as const },
      { lanName: false },
    ])
      expect(restartNeeded(base, after(patch))).toMatchObject({
        restart: true,
        restartKeys: Object.keys(patch),
      });
    expect(
      restartNeeded(
        base,
        after({ language: "en", theme: "dark", closeToTray: false, startAtLogin: true }),
      ),
    ).toEqual({
      restart: false,
      restartKeys: [],
      liveKeys: ["language", "theme", "startAtLogin", "closeToTray"],
    });
  });

  it("does not restart for the HTTPS port while HTTPS stays off, nor the unit outside systemd mode", () => {
    expect(restartNeeded(base, after({ parcelHttpsPort: 9443 })).restart).toBe(false);
    expect(restartNeeded(base, after({ coreUnit: "other.service" })).restart).toBe(false);
    const https = after({ httpsEnabled: true });
    expect(restartNeeded(https, { ...https, parcelHttpsPort: 9443 }).restartKeys).toEqual([
      "parcelHttpsPort",
    ]);
  });

  it("says nothing changed for equal settings", () => {
    expect(restartNeeded(base, { ...base, entries: "all" })).toEqual({
      restart: false,
      restartKeys: [],
      liveKeys: [],
    });
  });
});
