import { useT } from "../i18n.js";
import { Notice } from "../ui/notice.js";
import { Addresses } from "./addresses.js";
import { desktopDict } from "./i18n.js";
import { InboxPanel } from "./inbox-panel.js";
import { KeychainStatus } from "./keychain-status.js";
import { Passwords } from "./passwords.js";
import { SettingsForm } from "./settings-form.js";
import "./desktop.css";

/**
 * The Desktop screen (renderer/desktop/page.tsx shows it at app://gatehouse/desktop.html): the
 * addresses phones use (with QR codes), the inbox phones send to, the app's settings, the administrator passwords it
 * keeps, the proxy console's setup token while it has no administrator, and where it keeps
 * secrets.
 */
export default function DesktopScreen() {
  const t = useT(desktopDict);
  if (!window.gatehouse) return <Notice kind="info">{t("onlyDesktop")}</Notice>;
  return (
    <div className="desktop-screen">
      <h1>{t("heading")}</h1>
      <p className="muted">{t("lead")}</p>
      <Addresses />
      <InboxPanel />
      <section className="card desktop-section" aria-labelledby="desktop-settings">
        <h2 id="desktop-settings">{t("settingsTitle")}</h2>
        <SettingsForm />
      </section>
      <Passwords />
      <KeychainStatus />
    </div>
  );
}
