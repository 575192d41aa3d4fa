import type { Translate } from "../i18n.js";
import type { ShareUrl } from "../../../server/contract/parcel-views.js";
import type { UiKey } from "./i18n.js";

/**
 * A share address named in the reader's language ("本机", "局域网 192.168.1.20（HTTPS）"),
 * from its URL, by the same rules the service names it in English: loopback addresses are
 * this computer, any other IP address is on the LAN, `<name>.local` is the machine's LAN name,
 * any other host name is shown as it is.
 */
export function entryLabel(entry: ShareUrl, t: Translate<UiKey>): string {
  let url: URL;
  try {
    url = new URL(entry.url);
  } catch {
    return entry.label;
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let name: string;
  if (host === "localhost") name = t("entryLocalhost");
  else if (host === "127.0.0.1" || host === "::1") name = t("entryLocal");
  else if (/^[\d.]+$/.test(host) || host.includes(":")) name = t("entryLan", { address: host });
  else if (host.endsWith(".local")) name = t("entryLanName", { address: host });
  else name = host;
  return url.protocol === "https:" ? t("entryHttps", { entry: name }) : name;
}
