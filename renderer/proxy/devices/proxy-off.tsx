import { api } from "../api.js";
import { useT } from "../i18n.js";
import { useLoad } from "../parts/ui.js";

/**
 * While Settings' "Proxy on" is unchecked the core runs `mode: direct` (server/proxy/core/
 * compile.ts) and reads no rule at all, so no device policy (each an SRC-IP-CIDR rule) does
 * anything: a Blocked device still reaches the internet. The Devices screens say so beside
 * the policy control, as a state (not red), until the proxy is on again.
 */

/** The note's id: the policy controls name it as their description while it is shown. */
export const PROXY_OFF_ID = "dev-proxy-off";

/** Whether the proxy is off, read from the settings (and again every `everyMs`). */
export function useProxyOff(everyMs: number): boolean {
  const settings = useLoad(() => api("GET /settings"), everyMs);
  return settings.data ? !settings.data.proxyEnabled : false;
}

/** The sentence, and the way to Settings. */
export function ProxyOffNote() {
  const t = useT();
  return (
    <div
      className="alert alert-info dev-proxy-off"
      role="status"
      id={PROXY_OFF_ID}
      data-testid={PROXY_OFF_ID}
    >
      <span>{t("dev.proxyOff")}</span> <a href="#/settings">{t("dev.proxyOffLink")}</a>
    </div>
  );
}

/** What a save said, and whether as done (green) or with a caveat (blue). */
export interface Said {
  text: string;
  kind: "ok" | "info";
}
