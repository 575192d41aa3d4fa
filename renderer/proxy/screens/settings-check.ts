import { ApiError } from "../api.js";
import type { Translate } from "../i18n.js";
import type { Settings } from "../types.js";

export type SettingsDraft = Record<keyof Settings, string | boolean>;
export type Problems = Partial<Record<keyof Settings, string>>;

const V4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;

function intIn(value: string, min: number, max: number): boolean {
  if (!/^\d+$/.test(value.trim())) return false;
  const n = Number(value);
  return n >= min && n <= max;
}

function httpUrl(value: string): boolean {
  try {
    const u = new URL(value.trim());
    return (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
  } catch {
    return false;
  }
}

/** The server's checks that can be made in the browser (the machine checks stay on the server). */
export function settingsProblems(d: SettingsDraft, t: Translate): Problems {
  const out: Problems = {};
  const str = (k: keyof Settings) => String(d[k]).trim();
  if (!intIn(str("mixedPort"), 1024, 65535)) out.mixedPort = t("set.portRange", { min: 1024 });
  if (!intIn(str("dnsPort"), 1, 65535)) out.dnsPort = t("set.portRange", { min: 1 });
  if (!out.mixedPort) {
    const mp = Number(str("mixedPort"));
    if (mp === 8080 || mp === 9090) out.mixedPort = t("set.portReserved");
    else if (!out.dnsPort && mp === Number(str("dnsPort"))) out.mixedPort = t("set.portClash");
    else if (
      mp === Number(window.location.port || (window.location.protocol === "https:" ? 443 : 80))
    )
      out.mixedPort = t("set.portOwn");
  }
  if (!httpUrl(str("testURL"))) out.testURL = t("set.urlBad");
  if (!intIn(str("testTimeoutMS"), 100, 30000)) out.testTimeoutMS = t("set.timeoutRange");
  if (str("lanIP") && !V4.test(str("lanIP"))) out.lanIP = t("set.ipBad");
  if (str("gateway") && !V4.test(str("gateway")) && !/^[0-9a-f:]+$/i.test(str("gateway")))
    out.gateway = t("set.ipBad");
  if (str("lanCIDR")) {
    const [addr, bits, extra] = str("lanCIDR").split("/");
    if (extra !== undefined || bits === undefined || !V4.test(addr) || !intIn(bits, 0, 32))
      out.lanCIDR = t("set.cidrBad");
  }
  if (d.tunEnabled) {
    for (const k of ["lanIP", "lanCIDR", "gateway", "interface"] as const)
      if (!str(k)) out[k] ??= t("set.tunNeeds");
    if (!out.dnsPort && str("dnsPort") !== "53") out.dnsPort = t("set.tunDns");
  }
  return out;
}

/** Refusals about one field, said beside it (the port ones name the port). */
const FIELD_OF_CODE: Record<string, keyof Settings> = {
  "settings.mixed_port_dns": "mixedPort",
  "settings.mixed_port_reserved": "mixedPort",
  "settings.mixed_port_controller": "mixedPort",
  "settings.mixed_port_own": "mixedPort",
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

export function toDraft(s: Settings): SettingsDraft {
  return {
    ...s,
    mixedPort: String(s.mixedPort),
    dnsPort: String(s.dnsPort),
    testTimeoutMS: String(s.testTimeoutMS),
  };
}

export function fromDraft(d: SettingsDraft): Settings {
  const s = (k: keyof Settings) => String(d[k]).trim();
  return {
    proxyEnabled: d.proxyEnabled === true,
    tunEnabled: d.tunEnabled === true,
    selectionMode: s("selectionMode") === "manual" ? "manual" : "auto",
    selectedNode: String(d.selectedNode),
    lanIP: s("lanIP"),
    lanCIDR: s("lanCIDR"),
    gateway: s("gateway"),
    interface: s("interface"),
    mixedPort: Number(s("mixedPort")),
    dnsPort: Number(s("dnsPort")),
    testURL: s("testURL"),
    testTimeoutMS: Number(s("testTimeoutMS")),
  };
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
