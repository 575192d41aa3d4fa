import type { SecretStoreStatus } from "../../../preload/contract.js";
import { useT } from "../i18n.js";
import { Notice } from "../ui/notice.js";
import { keptTokenIds, useKeychain } from "../ui/tokens.js";
import { desktopDict } from "./i18n.js";
import { KeychainRefusalText } from "./keychain-notice.js";
import { useDesktopLoad } from "./use-desktop.js";

type Known = SecretStoreStatus | { kind: "unknown" };

/**
 * Where the app keeps secrets: the keychain, an encrypted file, or nowhere (with what to
 * install). Builds that do not say it in their status are asked by listing tokens.
 */
export function KeychainStatus() {
  const t = useT(desktopDict);
  const refusal = useKeychain((s) => s.refusal);
  const status = useDesktopLoad<Known>(async (api) => {
    const info = await api.app.info();
    if (info.secrets) return info.secrets;
    await keptTokenIds();
    return { kind: "unknown" };
  });
  const known = status.data;
  const refused =
    known?.kind === "refused" ? { code: known.code, message: known.message } : refusal;
  return (
    <section className="card desktop-section" aria-labelledby="desktop-keychain">
      <h2 id="desktop-keychain">{t("keychainTitle")}</h2>
      {refused ? (
        <Notice kind="warn">
          <KeychainRefusalText refusal={refused} />
        </Notice>
      ) : known?.kind === "keychain" ? (
        <p>{t("keychainOk")}</p>
      ) : known?.kind === "encrypted-file" ? (
        <p>{t(known.cause === "library" ? "keychainFileLibrary" : "keychainFile")}</p>
      ) : known ? (
        <p>{t("keychainUnknown")}</p>
      ) : (
        <p className="muted">…</p>
      )}
    </section>
  );
}
