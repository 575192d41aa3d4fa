import type { EntriesView } from "../../../preload/contract.js";
import { useT } from "../i18n.js";
import { CopyButton } from "../ui/copy-button.js";
import { Notice, RetryNotice } from "../ui/notice.js";
import { QrCode } from "../ui/qr-code.js";
import { desktopDict } from "./i18n.js";
import { useDesktopLoad } from "./use-desktop.js";

/** One address a phone can open, with its QR code. */
function EntryCard({ name, url }: { name: string; url: string }) {
  const t = useT(desktopDict);
  const https = url.startsWith("https:");
  return (
    <li className="desktop-entry card" aria-label={url}>
      <div className="desktop-entry-head">
        <strong>{name}</strong>
        <span className="badge">{https ? "HTTPS" : "HTTP"}</span>
      </div>
      <div className="desktop-entry-qr">
        <QrCode text={url} size={160} />
      </div>
      <div className="desktop-entry-url mono" translate="no">
        {url}
      </div>
      <CopyButton text={url} label={t("copyAddress")} />
    </li>
  );
}

/**
 * "Addresses on your network": every LAN entry with its QR code and a copy button. Read again
 * every few seconds, on every status change (a new DHCP lease shows without a restart) and
 * right after the settings were saved (the networks chosen there).
 */
export function Addresses() {
  const t = useT(desktopDict);
  const entries = useDesktopLoad<EntriesView>((api) => api.entries.list(), 10_000, {
    afterSave: true,
  });
  const view = entries.data;
  // The LAN name (`<hostname>.local`) first: it stays the same when an address changes.
  const lanName = view?.lanName ? [{ ...view.lanName, name: t("lanName") }] : [];
  const urls = [...lanName, ...(view?.lan ?? [])].flatMap((e) =>
    [e.http, e.https].filter((u): u is string => !!u).map((url) => ({ name: e.name, url })),
  );
  return (
    <section className="card desktop-section" aria-labelledby="desktop-addresses">
      <h2 id="desktop-addresses">{t("addressesTitle")}</h2>
      <p className="muted">{t("addressesLead")}</p>
      {entries.error && !view ? (
        <RetryNotice retry={t("retry")} onRetry={entries.reload}>
          {t("addressesFailed")}
        </RetryNotice>
      ) : null}
      {view && urls.length === 0 ? <Notice kind="info">{t("addressesNone")}</Notice> : null}
      {urls.length > 0 ? (
        <ul className="desktop-entries">
          {urls.map((u) => (
            <EntryCard key={u.url} name={u.name} url={u.url} />
          ))}
        </ul>
      ) : null}
      {view && view.missing.length > 0 ? (
        <p className="muted small">{t("addressesMissing", { names: view.missing.join(", ") })}</p>
      ) : null}
    </section>
  );
}
