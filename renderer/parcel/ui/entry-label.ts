import type { Translate } from "../i18n.js";
import type { ShareUrl } from "../types.js";
import type { UiKey } from "./i18n.js";

/**
 * A share address named in the reader's language ("本机", "局域网 192.168.1.20（HTTPS）").
 * The service sends `kind` and `address` beside its English `label`; an answer without them
 * (an older service) keeps the label as it came.
 */
export function entryLabel(entry: ShareUrl, t: Translate<UiKey>): string {
  if (!entry.kind || entry.address === undefined) return entry.label;
  let name: string;
  if (entry.kind === "local")
    name = entry.address === "localhost" ? t("entryLocalhost") : t("entryLocal");
  else if (entry.kind === "lan") name = t("entryLan", { address: entry.address });
  else name = entry.address;
  return isHttps(entry.url) ? t("entryHttps", { entry: name }) : name;
}

function isHttps(url: string): boolean {
  try {
    return new URL(url).protocol === "https:";
  } catch {
    return false;
  }
}
