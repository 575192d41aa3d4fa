import type { NetworkInterfaceInfo } from "node:os";
import { isIPv4 } from "node:net";
import { z } from "zod";
import {
  gatehousePortTaken,
  portConflicts,
  RuleInputSchema,
  Settings,
  tunConflicts,
  type GatehousePort,
  type SettingsConflict,
} from "../../contract/proxy.js";
import { DomainError } from "../../domain-errors.js";
import { lanListenAddress } from "../core/compile.js";
import { isIp, normaliseCidr, normaliseHostname } from "../store/net.js";

// The checks of settings and rules beyond their wire schemas: what needs this machine (its
// interfaces and ports) or an address parser. The schemas themselves are the contract's.

export interface MachineContext {
  ownPort: number;
  controllerPort: number;
  /** The ports of the parcel service of this Gatehouse (HTTP, HTTPS), when it runs beside. */
  parcelPorts?: number[];
  interfaces: () => NodeJS.Dict<NetworkInterfaceInfo[]>;
}

/** The ports this Gatehouse really listens on (0: not known yet, left out). */
export function gatehousePorts(machine: MachineContext): GatehousePort[] {
  const out: GatehousePort[] = [];
  if (machine.ownPort > 0) out.push({ port: machine.ownPort, use: "console" });
  out.push({ port: machine.controllerPort, use: "controller" });
  for (const port of machine.parcelPorts ?? []) if (port > 0) out.push({ port, use: "parcel" });
  return out;
}

const TAKEN_BY = {
  console: ["settings.mixed_port_own", "mixedPort must differ from the port of this service"],
  controller: [
    "settings.mixed_port_controller",
    "mixedPort must differ from the core controller port",
  ],
  parcel: ["settings.mixed_port_parcel", "mixedPort must differ from the file transfer's port"],
} as const;

/**
 * Checks parsed settings (PUT /settings and restore) against what the contract's schema cannot
 * know: this machine (its interfaces and ports) and the addresses' meaning. Throws an invalid
 * DomainError with the reason; answers the settings with the LAN network normalised.
 */
export function checkSettings(settings: Settings, machine: MachineContext): Settings {
  const s = { ...settings };
  conflict(portConflicts(s));
  // The ports Gatehouse really uses here, not fixed numbers: a console on 18080 leaves 8080 free.
  const taken = gatehousePortTaken(s, gatehousePorts(machine));
  if (taken) {
    const [code, message] = TAKEN_BY[taken.use];
    bad(new DomainError("invalid", code, message, { params: { port: s.mixedPort } }));
  }
  checkLanAddresses(s);
  if (s.tunEnabled) checkTun(s, machine);
  return s;
}

/** Throws the refusal: lets a one-line condition refuse in place. */
function bad(refusal: DomainError): never {
  throw refusal;
}

/** Throws the first conflict found, if any. */
function conflict(found: SettingsConflict[]): void {
  const first = found[0];
  if (first) bad(new DomainError("invalid", first.code, first.message));
}

/** lanIP, gateway and lanCIDR: their format and how they fit together; normalises s.lanCIDR. */
function checkLanAddresses(s: Settings): void {
  if (s.lanIP && !isIPv4(s.lanIP))
    bad(new DomainError("invalid", "settings.lan_ip_format", "lanIP must be an IPv4 address"));
  if (s.gateway && !isIp(s.gateway))
    bad(new DomainError("invalid", "settings.gateway_format", "gateway must be an IP address"));
  if (s.lanCIDR) {
    const cidr = normaliseCidr(s.lanCIDR);
    if (!cidr || !s.lanCIDR.includes("/"))
      bad(
        new DomainError(
          "invalid",
          "settings.lan_cidr_format",
          "lanCIDR must be a CIDR such as 192.168.1.0/24",
        ),
      );
    s.lanCIDR = cidr ?? s.lanCIDR;
    if (s.lanCIDR.endsWith("/0"))
      bad(
        new DomainError(
          "invalid",
          "settings.lan_cidr_everything",
          "lanCIDR must be the LAN, not every address",
        ),
      );
  }
  // The core listens on lanIP and admits lanCIDR there (see compile.ts).
  if (s.lanIP) {
    if (!lanListenAddress(s))
      bad(
        new DomainError(
          "invalid",
          "settings.lan_ip_loopback",
          "lanIP must be a unicast address other than 127.0.0.1",
        ),
      );
    if (!s.lanCIDR)
      bad(
        new DomainError(
          "invalid",
          "settings.lan_ip_needs_cidr",
          "lanIP needs lanCIDR, the network of the LAN clients",
        ),
      );
    const bits = s.lanCIDR.split("/")[1];
    if (normaliseCidr(`${s.lanIP}/${bits}`) !== s.lanCIDR)
      bad(new DomainError("invalid", "settings.lan_ip_outside", "lanIP must lie inside lanCIDR"));
  }
}

/** With TUN on: no port conflict, and lanIP is an address of the chosen interface. */
function checkTun(s: Settings, machine: MachineContext): void {
  conflict(tunConflicts(s));
  const addrs = machine.interfaces()[s.interface];
  if (!addrs)
    bad(
      new DomainError(
        "invalid",
        "settings.interface_missing",
        `The network interface ${s.interface} does not exist on this machine`,
        { params: { interface: s.interface } },
      ),
    );
  if (!addrs?.some((a) => a.address === s.lanIP)) {
    bad(
      new DomainError(
        "invalid",
        "settings.interface_address",
        `${s.lanIP} is not an address of the network interface ${s.interface}`,
        { params: { address: s.lanIP, interface: s.interface } },
      ),
    );
  }
}

/**
 * The contract's rule body, then the value normalised as the core compares it (lower case,
 * punycode, network address); a value that is no domain name or CIDR is refused on `value`.
 */
export const ruleInput = RuleInputSchema.transform((rule, ctx) => {
  const value = rule.type === "IP-CIDR" ? normaliseCidr(rule.value) : normaliseHostname(rule.value);
  if (!value) {
    ctx.addIssue({
      code: "custom",
      path: ["value"],
      message:
        rule.type === "IP-CIDR" ? "must be an IPv4 or IPv6 CIDR" : "must be a valid domain name",
    });
    return z.NEVER;
  }
  return { ...rule, value };
});
export type NormalisedRule = z.output<typeof ruleInput>;
