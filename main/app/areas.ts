import { DESKTOP_PAGE } from "../app-protocol.js";
import type { HostInfo } from "../host/host-status.js";
import type { OpenArea } from "../tray/model.js";

/**
 * Where the window goes for each area, and which origins are the services' own, from what the
 * service host says now (ports change with a restart, so these are asked again each time).
 */

/**
 * Where each area lives: the services' pages, and the Desktop screen (settings, passwords,
 * addresses), an app page that no service serves.
 */
export function areaUrl(info: HostInfo, area: OpenArea): string | null {
  if (area === "settings") return DESKTOP_PAGE;
  if (area === "proxy") return info.proxy ? `${info.proxy.url}/` : null;
  if (!info.parcel) return null;
  const hash: Record<Exclude<OpenArea, "proxy" | "settings">, string> = {
    window: "",
    send: "#/send",
    mine: "#/mine",
    admin: "#/admin",
  };
  return `${info.parcel.url}/${hash[area]}`;
}

function originsOf(urls: Array<string | null | undefined>): string[] {
  return [...new Set(urls.filter((u): u is string => !!u).map((u) => new URL(u).origin))];
}

/** The services' own origins: the only pages the window may show and IPC may answer. */
export function serviceOrigins(info: HostInfo): string[] {
  return originsOf([...(info.parcel?.entries ?? []), info.parcel?.url, info.proxy?.url]);
}

/** The parcel service's own origins: where the window's owner requests may carry a token. */
export function parcelOrigins(info: HostInfo): string[] {
  const parcel = info.parcel;
  return parcel ? originsOf([parcel.url, parcel.httpsUrl, ...parcel.entries]) : [];
}
