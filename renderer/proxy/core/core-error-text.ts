import type { Translate } from "../i18n.js";

/**
 * The service's sentence about an offline core, in the reader's language by its code (or its
 * known wording; the socket's code, such as ECONNREFUSED, is left out). A port another program
 * holds is named with the port.
 */
export function coreErrorText(error: string, t: Translate, code = "", port?: number): string {
  if (code === "core.port_in_use") return t("dash.portInUse", { port: port ?? "?" });
  if (code === "core.timeout") return t("dash.coreTimeout");
  // The socket's own code (ECONNREFUSED, ...) means nothing to a person; the service's log
  // keeps it.
  if (/^The proxy core cannot be reached(?: \([\w.-]+\))?$/.test(error))
    return t("dash.coreUnreachable", { code: "" });
  if (error === "The proxy core is offline") return t("dash.coreOffline");
  return t("dash.coreError", { error });
}
