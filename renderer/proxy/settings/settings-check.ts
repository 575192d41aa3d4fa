import {
  gatehousePortTaken,
  MIN_MIXED_PORT,
  portConflicts,
  Settings,
  SettingsSchema,
  tunConflicts,
  type GatehousePort,
  type SettingsConflict,
} from "../../../server/contract/proxy.js";
import { ApiError } from "../api.js";
import { serviceText } from "../errors/errors-i18n.js";
import type { Translate } from "../i18n.js";
import type { Lang } from "../../shared/lang.js";
import { draftOf, type FieldRule, type FieldRules } from "../../shared/ui/settings-form.js";

export type SettingsDraft = Record<keyof Settings, string | boolean>;
export type Problems = Partial<Record<keyof Settings, string>>;

const V4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;

/** A form field's text as the number it stands for; anything but digits is no number. */
function whole(text: string): number {
  return /^\d+$/.test(text.trim()) ? Number(text) : NaN;
}

/** What a schema issue on a field means to the reader. */
function schemaWords(field: keyof Settings, t: Translate): string | null {
  switch (field) {
    case "mixedPort":
      return t("set.portRange", { min: MIN_MIXED_PORT });
    case "dnsPort":
      return t("set.portRange", { min: 1 });
    case "testURL":
      return t("set.urlBad");
    case "testTimeoutMS":
      return t("set.timeoutRange");
    case "lanIP":
    case "gateway":
      return t("set.ipBad");
    case "lanCIDR":
      return t("set.cidrBad");
    default:
      return null;
  }
}

/** What a rule between fields means to the reader. */
function conflictWords(conflict: SettingsConflict, t: Translate): string {
  switch (conflict.code) {
    case "settings.mixed_port_dns":
      return t("set.portClash");
    case "settings.tun_dns_port":
      return t("set.tunDns");
    case "settings.tun_needs":
      return t("set.tunNeeds");
  }
}

/**
 * The checks of the service that need no machine: the contract's settings schema and its rules
 * between fields, said in the reader's words beside each field (the first problem of a field).
 * Addresses, interfaces and ports in use are checked by the service, and its refusal is shown
 * beside the field it names (see refusedField).
 */
export function settingsProblems(
  values: Settings,
  t: Translate,
  /** The reader's language, for the service's own sentence about a port Gatehouse uses. */
  lang: Lang,
  /** The ports this Gatehouse listens on (GET /system/network), when known. */
  ours: GatehousePort[] = [],
): Problems {
  const out: Problems = {};
  const checked = SettingsSchema.safeParse(values);
  if (!checked.success) {
    for (const issue of checked.error.issues) {
      const field = issue.path[0] as keyof Settings;
      const words = schemaWords(field, t);
      if (words) out[field] ??= words;
    }
    return out;
  }
  for (const conflict of [...portConflicts(checked.data), ...tunConflicts(checked.data)]) {
    out[conflict.field] ??= conflictWords(conflict, t);
  }
  // The service's own refusal, said before it is asked: a port this Gatehouse uses.
  const taken = gatehousePortTaken(checked.data, ours);
  if (taken)
    out.mixedPort ??=
      serviceText({ code: TAKEN_CODE[taken.use], params: { port: taken.port } }, lang) ?? undefined;
  return out;
}

const TAKEN_CODE: Record<GatehousePort["use"], string> = {
  console: "settings.mixed_port_own",
  controller: "settings.mixed_port_controller",
  parcel: "settings.mixed_port_parcel",
};

const PORT_WORDS = {
  console: "set.portOfConsole",
  controller: "set.portOfController",
  parcel: "set.portOfParcel",
} as const;

/** The HTTP/SOCKS port's hint, naming the ports this Gatehouse uses when they are known. */
export function mixedPortHint(ours: GatehousePort[], t: Translate): string {
  if (ours.length === 0) return t("set.mixedPortHint");
  const ports = ours.map((p) => t(PORT_WORDS[p.use], { port: p.port }));
  return t("set.mixedPortHintPorts", { ports: ports.join(t("common.listSep")) });
}

/** Refusals about one field, said beside it (the port ones name the port). */
const FIELD_OF_CODE: Record<string, keyof Settings> = {
  "settings.mixed_port_dns": "mixedPort",
  "settings.mixed_port_controller": "mixedPort",
  "settings.mixed_port_own": "mixedPort",
  "settings.mixed_port_parcel": "mixedPort",
  "settings.tun_dns_port": "dnsPort",
  "settings.lan_ip_format": "lanIP",
  "settings.lan_ip_loopback": "lanIP",
  "settings.lan_ip_outside": "lanIP",
  "settings.lan_cidr_format": "lanCIDR",
  "settings.lan_cidr_everything": "lanCIDR",
  "settings.gateway_format": "gateway",
  "settings.interface_missing": "interface",
};

/**
 * The field a refusal of the service is about, or null. A port another program holds names
 * its field (the HTTP/SOCKS or the DNS port) in the answer.
 */
export function refusedField(err: unknown): keyof Settings | null {
  if (!(err instanceof ApiError)) return null;
  if (err.code === "settings.port_in_use") {
    const field = err.params.field;
    return field === "mixedPort" || field === "dnsPort" ? field : null;
  }
  return FIELD_OF_CODE[err.code] ?? null;
}

/**
 * Whether a save's failure is said under the form. A refusal naming a field is not: it is said
 * beside that field only, and goes when the field is edited (its words are about a value no
 * longer in the form) or when the next save starts.
 */
export function saidUnderForm(err: unknown): boolean {
  return err !== undefined && err !== null && refusedField(err) === null;
}

type Field<V> = FieldRule<V, string | boolean, never>;

/** Text as typed, without the spaces around it (a node id as it is). */
const text = (trim = true): Field<string> => ({
  draft: (v) => v,
  parse: (d) => ({ value: trim ? String(d).trim() : String(d) }),
});
/** A number as its digits; the contract's schema judges it (see settingsProblems). */
const count: Field<number> = {
  draft: (v) => String(v),
  parse: (d) => ({ value: whole(String(d).trim()) }),
};
const flag: Field<boolean> = { draft: (v) => v, parse: (d) => ({ value: d === true }) };

/**
 * The Settings screen's fields for the shared builder: every draft stands for a value (the
 * schema and the rules between fields judge them all at once, in settingsProblems).
 */
export const SETTINGS_FIELDS: FieldRules<Settings, SettingsDraft, never> = {
  proxyEnabled: flag,
  tunEnabled: flag,
  selectionMode: {
    draft: (v) => v,
    parse: (d) => ({ value: String(d).trim() === "manual" ? "manual" : "auto" }),
  },
  selectedNode: text(false),
  lanIP: text(),
  lanCIDR: text(),
  gateway: text(),
  interface: text(),
  mixedPort: count,
  dnsPort: count,
  testURL: text(),
  testTimeoutMS: count,
};

export function toDraft(s: Settings): SettingsDraft {
  return draftOf(SETTINGS_FIELDS, s);
}

/** The settings a draft stands for: the body PUT /settings takes. */
export function fromDraft(d: SettingsDraft): Settings {
  const values: Record<string, unknown> = {};
  for (const [key, rule] of Object.entries(SETTINGS_FIELDS) as Array<
    [keyof Settings, Field<unknown>]
  >) {
    const r = rule.parse(d[key]);
    if ("value" in r) values[key] = r.value;
  }
  return values as Settings;
}

/** "192.168.1.20/24" -> the address and its network ("192.168.1.0/24"). */
export function splitAddress(cidr: string): { ip: string; network: string } | null {
  const [ip, bits] = cidr.split("/");
  if (!V4.test(ip) || bits === undefined) return null;
  const n = Number(bits);
  const value = ip.split(".").reduce((acc, part) => acc * 256 + Number(part), 0);
  const mask = n === 0 ? 0 : (0xffffffff << (32 - n)) >>> 0;
  const net = (value & mask) >>> 0;
  const network = [24, 16, 8, 0].map((shift) => (net >>> shift) & 255).join(".");
  return { ip, network: `${network}/${n}` };
}
