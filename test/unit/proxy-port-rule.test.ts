import { describe, expect, it } from "vitest";
import { SettingsSchema } from "../../server/contract/proxy.js";
import { DomainError } from "../../server/domain-errors.js";
import { parseOr400 } from "../../server/http/validate.js";
import { checkSettings, gatehousePorts } from "../../server/proxy/domain/input-checks.js";
import { DEFAULT_SETTINGS, type Settings } from "../../server/proxy/types.js";

/** The proxy's HTTP/SOCKS port against the ports this Gatehouse really uses, not fixed ones. */
const machine = {
  ownPort: 18080,
  controllerPort: 19090,
  parcelPorts: [18000, 18443],
  interfaces: () => ({}),
};

function check(patch: Partial<Settings>): string {
  try {
    checkSettings(parseOr400(SettingsSchema, { ...DEFAULT_SETTINGS, ...patch }), machine);
    return "ok";
  } catch (err) {
    if (err instanceof DomainError) return `${err.code} ${JSON.stringify(err.params)}`;
    throw err;
  }
}

describe("the HTTP/SOCKS port rule", () => {
  it("takes 8080 and 9090 when this Gatehouse uses other ports", () => {
    expect(check({ mixedPort: 8080 })).toBe("ok");
    expect(check({ mixedPort: 9090 })).toBe("ok");
  });

  it("refuses each port this Gatehouse uses, naming what uses it", () => {
    expect(check({ mixedPort: 18080 })).toBe('settings.mixed_port_own {"port":18080}');
    expect(check({ mixedPort: 19090 })).toBe('settings.mixed_port_controller {"port":19090}');
    expect(check({ mixedPort: 18000 })).toBe('settings.mixed_port_parcel {"port":18000}');
    expect(check({ mixedPort: 18443 })).toBe('settings.mixed_port_parcel {"port":18443}');
  });

  it("still wants it to differ from the DNS port", () => {
    expect(check({ mixedPort: 5353, dnsPort: 5353 })).toBe("settings.mixed_port_dns {}");
  });

  it("lists the ports in use, leaving out one not known yet", () => {
    expect(gatehousePorts(machine)).toEqual([
      { port: 18080, use: "console" },
      { port: 19090, use: "controller" },
      { port: 18000, use: "parcel" },
      { port: 18443, use: "parcel" },
    ]);
    expect(gatehousePorts({ ...machine, ownPort: 0, parcelPorts: undefined })).toEqual([
      { port: 19090, use: "controller" },
    ]);
  });
});
