import type { NetworkInterfaceInfo } from "node:os";
import { isIPv4 } from "node:net";
import { z } from "zod";
import { HttpError } from "../../http/errors.js";
import { parseOr400 } from "../../http/validate.js";
import type { Settings } from "../types.js";
import { lanListenAddress } from "../core/compile.js";
import { isIp, normaliseCidr, normaliseHostname } from "./net.js";

export const ID_PATTERN = /^[0-9a-f]{24}$/;
export const MAX_SUBSCRIPTIONS = 50;

const httpUrl = (max: number) =>
  z
    .string()
    .trim()
    .min(1, "must not be empty")
    .max(max, `must be at most ${max} characters`)
    .refine((value) => {
      try {
        const u = new URL(value);
        return (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
      } catch {
        return false;
      }
    }, "must be an http or https URL");

const port = (min: number) =>
  z
    .int("must be an integer")
    .min(min, `must be at least ${min}`)
    .max(65535, "must be at most 65535");

export const settingsShape = z.strictObject({
  proxyEnabled: z.boolean("must be true or false"),
  tunEnabled: z.boolean("must be true or false"),
  selectionMode: z.enum(["manual", "auto"], "must be manual or auto"),
  selectedNode: z.string("must be a string").max(4096, "is too long"),
  lanIP: z.string("must be a string").trim().max(64, "is too long"),
  lanCIDR: z.string("must be a string").trim().max(64, "is too long"),
  gateway: z.string("must be a string").trim().max(64, "is too long"),
  interface: z.string("must be a string").trim().max(64, "is too long"),
  mixedPort: port(1024),
  dnsPort: port(1),
  testURL: httpUrl(2048),
  testTimeoutMS: z
    .int("must be an integer")
    .min(100, "must be at least 100")
    .max(30000, "must be at most 30000"),
});

export interface MachineContext {
  ownPort: number;
  controllerPort: number;
  interfaces: () => NodeJS.Dict<NetworkInterfaceInfo[]>;
}

/** Validates a whole settings object (PUT /settings and restore); throws 400 with the reason. */
export function validateSettings(raw: unknown, machine: MachineContext): Settings {
  const s = parseOr400(settingsShape, raw);
  const bad = (refusal: HttpError): never => {
    throw refusal;
  };
  const port = { params: { port: s.mixedPort } };
  if (s.mixedPort === s.dnsPort)
    bad(new HttpError(400, "settings.mixed_port_dns", "mixedPort must differ from dnsPort"));
  if (s.mixedPort === 8080 || s.mixedPort === 9090)
    bad(
      new HttpError(
        400,
        "settings.mixed_port_reserved",
        "mixedPort must not be 8080 or 9090",
        port,
      ),
    );
  if (s.mixedPort === machine.controllerPort)
    bad(
      new HttpError(
        400,
        "settings.mixed_port_controller",
        "mixedPort must differ from the core controller port",
        port,
      ),
    );
  if (machine.ownPort > 0 && s.mixedPort === machine.ownPort) {
    bad(
      new HttpError(
        400,
        "settings.mixed_port_own",
        "mixedPort must differ from the port of this service",
        port,
      ),
    );
  }
  if (s.lanIP && !isIPv4(s.lanIP))
    bad(new HttpError(400, "settings.lan_ip_format", "lanIP must be an IPv4 address"));
  if (s.gateway && !isIp(s.gateway))
    bad(new HttpError(400, "settings.gateway_format", "gateway must be an IP address"));
  if (s.lanCIDR) {
    const cidr = normaliseCidr(s.lanCIDR);
    if (!cidr || !s.lanCIDR.includes("/"))
      bad(
        new HttpError(
          400,
          "settings.lan_cidr_format",
          "lanCIDR must be a CIDR such as 192.168.1.0/24",
        ),
      );
    s.lanCIDR = cidr ?? s.lanCIDR;
    if (s.lanCIDR.endsWith("/0"))
      bad(
        new HttpError(
          400,
          "settings.lan_cidr_everything",
          "lanCIDR must be the LAN, not every address",
        ),
      );
  }
  // The core listens on lanIP and admits lanCIDR there (see compile.ts).
  if (s.lanIP) {
    if (!lanListenAddress(s))
      bad(
        new HttpError(
          400,
          "settings.lan_ip_loopback",
          "lanIP must be a unicast address other than 127.0.0.1",
        ),
      );
    if (!s.lanCIDR)
      bad(
        new HttpError(
          400,
          "settings.lan_ip_needs_cidr",
          "lanIP needs lanCIDR, the network of the LAN clients",
        ),
      );
    const bits = s.lanCIDR.split("/")[1];
    if (normaliseCidr(`${s.lanIP}/${bits}`) !== s.lanCIDR)
      bad(new HttpError(400, "settings.lan_ip_outside", "lanIP must lie inside lanCIDR"));
  }
  if (s.tunEnabled) {
    if (s.dnsPort !== 53)
      bad(new HttpError(400, "settings.tun_dns_port", "dnsPort must be 53 when TUN is enabled"));
    if (!s.lanIP || !s.lanCIDR || !s.gateway || !s.interface) {
      bad(
        new HttpError(
          400,
          "settings.tun_needs",
          "TUN mode needs lanIP, lanCIDR, gateway and interface",
        ),
      );
    }
    const addrs = machine.interfaces()[s.interface];
    if (!addrs)
      bad(
        new HttpError(
          400,
          "settings.interface_missing",
          `The network interface ${s.interface} does not exist on this machine`,
          { params: { interface: s.interface } },
        ),
      );
    if (!addrs?.some((a) => a.address === s.lanIP)) {
      bad(
        new HttpError(
          400,
          "settings.interface_address",
          `${s.lanIP} is not an address of the network interface ${s.interface}`,
          { params: { address: s.lanIP, interface: s.interface } },
        ),
      );
    }
  }
  return s;
}

const subName = z
  .string("must be a string")
  .trim()
  .min(1, "must not be empty")
  .max(64, "must be at most 64 characters");
const intervalHours = z
  .int("must be an integer")
  .min(0, "must be at least 0")
  .max(720, "must be at most 720");

export const subscriptionInput = z.strictObject({
  name: subName,
  url: httpUrl(2048),
  enabled: z.boolean("must be true or false").default(true),
  intervalHours: intervalHours.default(24),
});
export type SubscriptionInput = z.infer<typeof subscriptionInput>;

export const ruleInput = z
  .strictObject({
    type: z.enum(
      ["DOMAIN", "DOMAIN-SUFFIX", "IP-CIDR"],
      "must be DOMAIN, DOMAIN-SUFFIX or IP-CIDR",
    ),
    value: z.string("must be a string").max(300, "is too long"),
    action: z.enum(["DIRECT", "PROXY"], "must be DIRECT or PROXY"),
    enabled: z.boolean("must be true or false").default(true),
  })
  .transform((rule, ctx) => {
    const value =
      rule.type === "IP-CIDR" ? normaliseCidr(rule.value) : normaliseHostname(rule.value);
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
export type RuleInput = z.infer<typeof ruleInput>;

const id = z.string().regex(ID_PATTERN, "must be 24 hexadecimal characters");

/** Backup file: version first (a wrong version is its own error), then every field. */
export const backupShape = z.object({
  version: z.literal(1, "unsupported backup version (only 1 is accepted)"),
  exportedAt: z.string().optional(),
  state: z.object({
    settings: z.unknown(),
    subscriptions: z
      .array(
        z.object({
          id,
          name: subName,
          url: httpUrl(2048),
          enabled: z.boolean("must be true or false"),
          intervalHours,
        }),
      )
      .max(MAX_SUBSCRIPTIONS, `at most ${MAX_SUBSCRIPTIONS} subscriptions`),
    rules: z.array(z.object({ id }).passthrough()).max(10_000, "too many rules"),
  }),
});
