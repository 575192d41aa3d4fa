import { z } from "zod";

/**
 * The proxy service's editable records as they travel: settings, subscriptions and custom
 * rules. The routes parse request bodies with these schemas and the console's forms are typed
 * by them, so a form cannot send a field its route refuses. Checks that need the machine
 * (interfaces, ports in use) or a name normaliser stay on the service.
 */

/** Ids of subscriptions and rules: 24 lower-case hexadecimal characters. */
export const ID_PATTERN = /^[0-9a-f]{24}$/;
/** How many subscriptions the service keeps at most. */
export const MAX_SUBSCRIPTIONS = 50;
/** How many custom rules a backup may hold. */
export const MAX_RULES = 10_000;

export const recordIdSchema = z.string().regex(ID_PATTERN, "must be 24 hexadecimal characters");

/** An http(s) URL with a host name, trimmed. */
export const httpUrl = (max: number) =>
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

/** The lowest port the HTTP/SOCKS listener may use (below it needs privileges). */
export const MIN_MIXED_PORT = 1024;
/** TUN mode answers DNS for the LAN on the standard port. */
export const TUN_DNS_PORT = 53;

/** The whole settings object (`PUT /settings` replaces all of it). */
export const SettingsSchema = z.strictObject({
  proxyEnabled: z.boolean("must be true or false"),
  tunEnabled: z.boolean("must be true or false"),
  selectionMode: z.enum(["manual", "auto"], "must be manual or auto"),
  selectedNode: z.string("must be a string").max(4096, "is too long"),
  lanIP: z.string("must be a string").trim().max(64, "is too long"),
  lanCIDR: z.string("must be a string").trim().max(64, "is too long"),
  gateway: z.string("must be a string").trim().max(64, "is too long"),
  interface: z.string("must be a string").trim().max(64, "is too long"),
  mixedPort: port(MIN_MIXED_PORT),
  dnsPort: port(1),
  testURL: httpUrl(2048),
  testTimeoutMS: z
    .int("must be an integer")
    .min(100, "must be at least 100")
    .max(30000, "must be at most 30000"),
});
export type Settings = z.output<typeof SettingsSchema>;
export type SelectionMode = Settings["selectionMode"];

export const subscriptionNameSchema = z
  .string("must be a string")
  .trim()
  .min(1, "must not be empty")
  .max(64, "must be at most 64 characters");
export const intervalHoursSchema = z
  .int("must be an integer")
  .min(0, "must be at least 0")
  .max(720, "must be at most 720");

/** Body of `POST /subscriptions` and `PUT /subscriptions/:id`. */
export const SubscriptionInputSchema = z.strictObject({
  name: subscriptionNameSchema,
  url: httpUrl(2048),
  enabled: z.boolean("must be true or false").default(true),
  intervalHours: intervalHoursSchema.default(24),
});
export type SubscriptionInput = z.output<typeof SubscriptionInputSchema>;

export const RuleTypeSchema = z.enum(
  ["DOMAIN", "DOMAIN-SUFFIX", "IP-CIDR"],
  "must be DOMAIN, DOMAIN-SUFFIX or IP-CIDR",
);
export type RuleType = z.output<typeof RuleTypeSchema>;
export const RuleActionSchema = z.enum(["DIRECT", "PROXY"], "must be DIRECT or PROXY");
export type RuleAction = z.output<typeof RuleActionSchema>;
/** The longest rule value (a domain name or a CIDR) the service takes. */
export const MAX_RULE_VALUE = 300;

/**
 * Body of `POST /rules` and `PUT /rules/:id`: the rule's four fields and nothing else (its id
 * is in the path). The service then normalises the value (lower case, punycode, network
 * address) and refuses one that is no domain name or CIDR.
 */
export const RuleInputSchema = z.strictObject({
  type: RuleTypeSchema,
  value: z.string("must be a string").max(MAX_RULE_VALUE, "is too long"),
  action: RuleActionSchema,
  enabled: z.boolean("must be true or false").default(true),
});
export type RuleInput = z.output<typeof RuleInputSchema>;

/** A stored custom rule. */
export const RuleSchema = z.object({
  id: z.string(),
  type: RuleTypeSchema,
  value: z.string(),
  action: RuleActionSchema,
  enabled: z.boolean(),
});
export type Rule = z.output<typeof RuleSchema>;

/** A rule between settings fields that the schema alone cannot say, broken by a value. */
export interface SettingsConflict {
  /** The field it is said beside. */
  field: keyof Settings;
  /** The service's stable name for the refusal. */
  code: "settings.mixed_port_dns" | "settings.tun_dns_port" | "settings.tun_needs";
  /** The service's English sentence. */
  message: string;
  params?: Record<string, string | number>;
}

/**
 * The listener ports must differ. (The ports Gatehouse itself uses are checked against the
 * ports really in use: `GatehousePort` below, from GET /system/network.)
 */
export function portConflicts(s: Settings): SettingsConflict[] {
  const out: SettingsConflict[] = [];
  if (s.mixedPort === s.dnsPort)
    out.push({
      field: "mixedPort",
      code: "settings.mixed_port_dns",
      message: "mixedPort must differ from dnsPort",
    });
  return out;
}

/** What a port of this machine's Gatehouse is used for (the core's listeners may not take it). */
export const GatehousePortUseSchema = z.enum(["console", "controller", "parcel"]);
/** A port this Gatehouse listens on: the console, the core's controller, the file transfer. */
export const GatehousePortSchema = z.object({ port: z.number(), use: GatehousePortUseSchema });
export type GatehousePort = z.output<typeof GatehousePortSchema>;

/** The first port of Gatehouse's own that the HTTP/SOCKS port would take, or null. */
export function gatehousePortTaken(s: Settings, ports: GatehousePort[]): GatehousePort | null {
  return ports.find((p) => p.port === s.mixedPort) ?? null;
}

/** The fields TUN mode needs: the standard DNS port and the whole LAN side. */
export const TUN_FIELDS = ["lanIP", "lanCIDR", "gateway", "interface"] as const;

export function tunConflicts(s: Settings): SettingsConflict[] {
  if (!s.tunEnabled) return [];
  const out: SettingsConflict[] = [];
  if (s.dnsPort !== TUN_DNS_PORT)
    out.push({
      field: "dnsPort",
      code: "settings.tun_dns_port",
      message: `dnsPort must be ${TUN_DNS_PORT} when TUN is enabled`,
    });
  for (const field of TUN_FIELDS) {
    if (!s[field])
      out.push({
        field,
        code: "settings.tun_needs",
        message: "TUN mode needs lanIP, lanCIDR, gateway and interface",
      });
  }
  return out;
}
