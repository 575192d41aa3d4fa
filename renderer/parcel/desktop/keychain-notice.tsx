import { useEffect } from "react";
import { useT } from "../i18n.js";
import { useApp } from "../store.js";
import { Notice } from "../ui/notice.js";
import { inDesktop, keptTokenIds, useKeychain, type KeychainRefusal } from "../ui/tokens.js";
import { keychainDict } from "./keychain-i18n.js";

type InstallKey = "installLinux" | "installMac" | "installWindows";

/**
 * Which OS keychain to talk about: the window runs on the operator's own computer. The
 * platform, not the user agent string, which pages and test browsers may dress up.
 */
export function installKey(platform: string = navigator.platform): InstallKey {
  if (/^Mac/i.test(platform)) return "installMac";
  if (/^Win/i.test(platform)) return "installWindows";
  return "installLinux";
}

/** The refusal in the reader's words: what is missing and what to install. */
export function KeychainRefusalText({ refusal }: { refusal: KeychainRefusal }) {
  const t = useT(keychainDict);
  // Chinese sentences follow each other without a space.
  const gap = useApp((s) => (s.lang === "zh-CN" ? "" : " "));
  if (refusal.code !== "secrets.no_keychain") return <>{t("failedBody")}</>;
  return (
    <>
      <strong>{t("refusedTitle")}</strong>
      {gap}
      {t(installKey())}
      {gap}
      {t("refusedBody")}
    </>
  );
}

/**
 * Desktop only: says when the keychain refuses to keep manage tokens (the page keeps them in
 * memory for this window's life instead). Asks the keychain once on mount, so the operator
 * reads it before sending, not after.
 */
export function KeychainNotice() {
  const refusal = useKeychain((s) => s.refusal);
  useEffect(() => {
    if (inDesktop()) void keptTokenIds();
  }, []);
  if (!refusal) return null;
  return (
    <div className="keychain-notice" data-testid="keychain-refused">
      <Notice kind="warn">
        <KeychainRefusalText refusal={refusal} />
      </Notice>
    </div>
  );
}
