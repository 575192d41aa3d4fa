import { useEffect, useRef } from "react";
import type { AreaProps } from "../app.js";
import { useT } from "../i18n.js";
import { AuditTab } from "./audit.js";
import { adminInboxDict } from "./inbox-i18n.js";
import { InboxTab } from "./inbox-tab.js";
import { useA, type AdminKey } from "./i18n.js";
import { LoginForm } from "./login.js";
import { ParcelsTab } from "./parcels.js";
import { adminApi, useSession } from "./session.js";
import { SettingsTab } from "./settings.js";
import { StatsTab } from "./stats.js";
import { Alert, useAction, useErrorText } from "./ui.js";
import "./admin.css";

const TABS = ["stats", "parcels", "inbox", "audit", "settings"] as const;
type Tab = (typeof TABS)[number];
const TAB_LABEL: Record<Exclude<Tab, "inbox">, AdminKey> = {
  stats: "tab.stats",
  parcels: "tab.parcels",
  audit: "tab.audit",
  settings: "tab.settings",
};

function tabOf(rest: string): Tab {
  const head = rest.split("/")[0];
  return (TABS as readonly string[]).includes(head) ? (head as Tab) : "stats";
}

function Console({ tab }: { tab: Tab }) {
  const t = useA();
  const ti = useT(adminInboxDict);
  const label = (id: Tab) => (id === "inbox" ? ti("tab") : t(TAB_LABEL[id]));
  const { username, signedOut } = useSession();
  const logout = useAction();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const first = useRef(true);
  useEffect(() => {
    // After switching tabs, keyboard and screen-reader users land on the new tab's content.
    if (first.current) first.current = false;
    else headingRef.current?.focus({ preventScroll: true });
  }, [tab]);
  const signOut = () =>
    void logout.run(async () => {
      await adminApi("POST /admin/logout");
      signedOut();
    });
  return (
    <div className="adm">
      <header className="adm-head">
        <h1>{t("title")}</h1>
        <div className="adm-user">
          <span className="muted">{t("signedInAs", { user: username ?? "" })}</span>
          <button type="button" onClick={signOut} disabled={logout.busy}>
            {t("logout")}
          </button>
        </div>
      </header>
      <Alert text={logout.error} />
      <nav className="adm-tabs" aria-label={t("tabs")}>
        {TABS.map((id) => (
          <a key={id} href={`#/admin/${id}`} aria-current={id === tab ? "page" : undefined}>
            {label(id)}
          </a>
        ))}
      </nav>
      <div className="adm-panel">
        <h2 className="sr-only" tabIndex={-1} ref={headingRef}>
          {label(tab)}
        </h2>
        {tab === "stats" ? <StatsTab /> : null}
        {tab === "parcels" ? <ParcelsTab /> : null}
        {tab === "inbox" ? <InboxTab /> : null}
        {tab === "audit" ? <AuditTab /> : null}
        {tab === "settings" ? <SettingsTab /> : null}
      </div>
    </div>
  );
}

/** The parcel administration area (`#/admin/<tab>`). */
export default function AdminScreen({ rest }: AreaProps) {
  const t = useA();
  const describe = useErrorText();
  const { phase, error, check } = useSession();
  useEffect(() => {
    void check();
  }, [check]);
  if (phase === "checking")
    return (
      <p className="muted" role="status">
        {t("common.loading")}
      </p>
    );
  if (phase === "error")
    return (
      <div className="adm-login">
        <div className="adm-login-box">
          <Alert text={`${t("err.status0")} ${describe(error)}`} />
          <button type="button" onClick={() => void check()}>
            {t("common.retry")}
          </button>
        </div>
      </div>
    );
  if (phase === "out") return <LoginForm />;
  return <Console tab={tabOf(rest)} />;
}
