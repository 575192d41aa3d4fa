import { describe, expect, it } from "vitest";
import { SettingsSchema } from "../../server/contract/proxy.js";
import { DomainError } from "../../server/domain-errors.js";
import { HttpError } from "../../server/http/errors.js";
import { parseOr400 } from "../../server/http/validate.js";
import { checkSettings } from "../../server/proxy/domain/input-checks.js";
import { DEFAULT_SETTINGS, type Settings } from "../../server/proxy/types.js";
import { proxyStatus } from "../helpers/error-status.js";

const machine = {
  ownPort: 8080,
  controllerPort: 9090,
  interfaces: () => ({}),
};

function check(patch: Partial<Settings>): string | Settings {
  try {
    return checkSettings(parseOr400(SettingsSchema, { ...DEFAULT_SETTINGS, ...patch }), machine);
  } catch (err) {
    if (err instanceof HttpError || err instanceof DomainError)
      return `${proxyStatus(err)} ${err.message}`;
    throw err;
  }
}

describe("LAN settings validation (the core listens on lanIP and admits lanCIDR)", () => {
  it("accepts a LAN address inside its network, and a network alone", () => {
    expect(check({ lanIP: "192.168.1.2", lanCIDR: "192.168.1.0/24" })).toMatchObject({
      lanIP: "192.168.1.2",
      lanCIDR: "192.168.1.0/24",
    });
    expect(check({ lanIP: "10.1.2.3", lanCIDR: "10.1.2.3/16" })).toMatchObject({
      lanCIDR: "10.1.0.0/16",
    });
    expect(check({ lanCIDR: "192.168.1.0/24" })).toMatchObject({ lanIP: "" });
  });

  it.each([
    ["every address", { lanIP: "0.0.0.0", lanCIDR: "0.0.0.0/0" }, "lanCIDR must be the LAN"],
    ["unspecified", { lanIP: "0.0.0.0", lanCIDR: "10.0.0.0/8" }, "lanIP must be a unicast"],
    ["broadcast", { lanIP: "255.255.255.255", lanCIDR: "10.0.0.0/8" }, "lanIP must be a unicast"],
    ["multicast", { lanIP: "239.0.0.1", lanCIDR: "10.0.0.0/8" }, "lanIP must be a unicast"],
    ["loopback", { lanIP: "127.0.0.1", lanCIDR: "127.0.0.0/8" }, "lanIP must be a unicast"],
    ["without a network", { lanIP: "192.168.1.2" }, "lanIP needs lanCIDR"],
    ["outside its network", { lanIP: "192.168.2.2", lanCIDR: "192.168.1.0/24" }, "inside"],
    ["an IPv6 network", { lanIP: "192.168.1.2", lanCIDR: "fd00::/64" }, "inside"],
  ])("answers 400 for a LAN address that is %s", (_what, patch, message) => {
    const r = check(patch);
    expect(r).toEqual(expect.stringMatching(/^400 /));
    expect(r).toContain(message);
  });
});
