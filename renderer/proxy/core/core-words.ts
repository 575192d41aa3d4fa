import { serviceText } from "../errors/errors-i18n.js";
import type { Key, Translate } from "../i18n.js";
import { useApp } from "../store.js";

/**
 * The service's sentences about the core, updates, connectivity and backups, said in the
 * reader's language by their stable `code`. `details` are the other fields the service sent
 * beside the code (a port, a status, the core's own words).
 */
export type CodedText = (details: Record<string, unknown>, t: Translate) => string;

const num = (v: unknown): string | number => (typeof v === "number" ? v : String(v ?? "?"));
const text = (v: unknown): string => (typeof v === "string" ? v : "");

function simple(key: Key): CodedText {
  return (_d, t) => t(key);
}

export const CORE_CODED: Record<string, CodedText> = {
  "core.port_in_use": (d, t) => t("dash.portInUse", { port: num(d.port) }),
  "core.not_installed": simple("dash.notInstalledError"),
  "core.unreachable": simple("error.coreNotRunning"),
  "core.timeout": simple("dash.coreTimeout"),
  "core.config_rejected": (d, t) => t("dash.configRejected", { detail: text(d.detail) }),
  "core.start_failed": (d, t) => t("dash.startFailed", { detail: text(d.detail) }),
  "core.restart_failed": (d, t) => t("dash.restartFailed", { detail: text(d.detail) }),
  "core.stop_failed": (d, t) => t("dash.stopFailed", { detail: text(d.detail) }),
  "core.logs_ended": simple("logs.ended"),
  "updates.unreachable": simple("sys.updateUnreachable"),
  "updates.timeout": simple("sys.updateTimeout"),
  "updates.http_status": (d, t) => t("sys.updateHttp", { status: num(d.status) }),
  "updates.bad_answer": simple("sys.updateBadAnswer"),
  "backup.not_backup": simple("sys.notBackup"),
  "backup.version": simple("sys.backupVersion"),
  "connectivity.busy": simple("conn.busy"),
};

/** A connectivity result's `detail`, by its code; unknown codes keep the service's sentence. */
const SITE_DETAIL: Record<string, Key> = {
  "connectivity.proxy_down": "conn.proxyDown",
  "connectivity.tunnel_refused": "conn.tunnelRefused",
  "connectivity.cert_expired": "conn.certExpired",
  "connectivity.cert_name": "conn.certName",
  "connectivity.cert_untrusted": "conn.certUntrusted",
  "connectivity.dns": "conn.dns",
  "connectivity.refused": "conn.refused",
  "connectivity.reset": "conn.reset",
  "connectivity.unreachable": "conn.unreachable",
  "connectivity.closed": "conn.closed",
  "connectivity.not_http": "conn.notHttp",
  "connectivity.failed": "conn.failed",
};

export function siteDetail(
  result: { code?: string; detail: string; httpStatus: number },
  t: Translate,
): string {
  if (result.code === "connectivity.answered")
    return t("conn.answered", { status: result.httpStatus });
  // The state word ("timed out") already says it all.
  if (result.code === "connectivity.timeout") return "";
  if (!result.code) {
    // A service that sends no code: its status and its own words, as they came.
    const status = result.httpStatus ? `HTTP ${result.httpStatus}` : "";
    return [status, result.detail].filter(Boolean).join(" · ");
  }
  const key = SITE_DETAIL[result.code];
  return key ? t(key) : result.detail;
}

/**
 * A coded sentence (these words where they fit the place, else the console's sentence for the
 * code), or the service's English one when the code is not known here.
 */
export function codedText(
  code: string | undefined,
  details: Record<string, unknown>,
  fallback: string,
  t: Translate,
): string {
  const say = code ? CORE_CODED[code] : undefined;
  if (say) return say(details, t);
  const said = code ? serviceText({ code, params: details }, useApp.getState().lang) : null;
  return said ?? fallback;
}
